// The channel's messages are input from any page of the origin: each is checked for its app, shape, ids,
// sizes and keys before a tab uses it (what a tab then does with one is tested in tabs.test.ts).
import { describe, expect, it } from 'vitest';
import { AuthError } from '../protocol/errors';
import { parseMessage } from './channel';
import { failureCode } from './grants';
import { appNames } from '../browser/storage';

const NOW = 1_700_000_000_000;
const APP = appNames('https://id.example', 'demo-spa').app;
const plain = { app: APP, dpop: false, now: NOW };
const id = 'a'.repeat(43);
const tokens = { accessToken: 'at', refreshToken: 'rt', expiresAt: NOW + 60_000, subject: 'alice-sub' };
const session = () => ({ id, tokens, scope: 'openid notes.read', user: { sub: 'alice-sub' } });
const ours = (body: Record<string, unknown>) => ({ app: APP, ...body });

describe('parseMessage', () => {
  it.each([
    ['not an object', 'signed-in'],
    ['an unknown type', ours({ type: 'signed-in', tokens })],
    ['a message without an app', { type: 'ask', from: id }],
    ['a message of another app on the origin', { app: appNames('https://id.example', 'other-spa').app, type: 'ask', from: id }],
    ['an offer without a token', ours({ type: 'offer', session: { ...session(), tokens: undefined } })],
    ['an offer without a scope', ours({ type: 'offer', session: { ...session(), scope: undefined } })],
    [
      'an offer with a huge token',
      ours({ type: 'offer', session: { ...session(), tokens: { ...tokens, accessToken: 'x'.repeat(20_000) } } }),
    ],
    [
      'a token with a line break',
      ours({ type: 'offer', session: { ...session(), tokens: { ...tokens, accessToken: 'a\r\nb' } } }),
    ],
    [
      'an offer expiring after a day',
      ours({ type: 'offer', session: { ...session(), tokens: { ...tokens, expiresAt: NOW + 86_400_001 } } }),
    ],
    ['a session id that is no id', ours({ type: 'offer', session: { ...session(), id: '../x' } })],
    ['claims of another subject', ours({ type: 'offer', session: { ...session(), user: { sub: 'mallory' } } })],
    [
      'poisoned claims',
      ours({ type: 'offer', session: { ...session(), user: JSON.parse('{"sub":"alice-sub","__proto__":{"x":1}}') } }),
    ],
    ['huge claims', ours({ type: 'offer', session: { ...session(), user: { sub: 'alice-sub', big: 'x'.repeat(70_000) } } })],
    ['keys where DPoP is off', ours({ type: 'offer', session: { ...session(), keys: {} } })],
    ['per-API scope that is a list', ours({ type: 'offer', session: { ...session(), added: ['notes.write'] } })],
    ['per-API scope that is text', ours({ type: 'offer', session: { ...session(), added: 'notes.write' } })],
    ['per-API scope that is null', ours({ type: 'offer', session: { ...session(), added: null } })],
    [
      'per-API scope with a line break',
      ours({ type: 'offer', session: { ...session(), added: { 'https://api.example': 'a\nb' } } }),
    ],
    ['per-API scope that is not text', ours({ type: 'offer', session: { ...session(), added: { 'https://api.example': 42 } } })],
    [
      'a huge per-API scope',
      ours({ type: 'offer', session: { ...session(), added: { 'https://api.example': 'x'.repeat(2100) } } }),
    ],
    [
      'a huge resource',
      ours({ type: 'offer', session: { ...session(), added: { ['https://api.example/' + 'x'.repeat(2100)]: 'a' } } }),
    ],
    [
      'per-API scope for too many APIs',
      ours({
        type: 'offer',
        session: {
          ...session(),
          added: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`https://api${i}.example`, 'a'])),
        },
      }),
    ],
    ['a renewal without an expiry', ours({ type: 'renewed', id, sub: 'alice-sub', tokens: { accessToken: 'at' } })],
    ['a renewal without a person', ours({ type: 'renewed', id, tokens })],
    [
      'a renewal expiring after a day',
      ours({ type: 'renewed', id, sub: 'alice-sub', tokens: { ...tokens, expiresAt: Infinity } }),
    ],
    ['an ask from no id', ours({ type: 'ask', from: '<script>' })],
    ['a renewal request without an expiry', ours({ type: 'renew', id })],
    ['a grant asked for with a resource that is not text', ours({ type: 'grant', id, from: id, params: { resource: 'a\nb' } })],
    [
      'a grant asked for with a huge scope',
      ours({ type: 'grant', id, from: id, params: { resource: 'https://api.example', scope: 'x'.repeat(2100) } }),
    ],
    [
      'a grant answered with neither tokens nor a short error',
      ours({ type: 'granted', id, to: id, sub: 'a', error: 'x'.repeat(100) }),
    ],
    ['a rotated refresh token with a line break', ours({ type: 'rotated', id, sub: 'alice-sub', refreshToken: 'a\r\nb' })],
    ['a rotation without a person', ours({ type: 'rotated', id, refreshToken: 'rt2' })],
    ['an end without a session id', ours({ type: 'ended' })],
    ['a sign-out of no session in particular', ours({ type: 'signed-out' })],
    ['a sign-out naming no id', ours({ type: 'signed-out', id: 42 })],
  ])('refuses %s', (_name, data) => {
    expect(parseMessage(data, plain)).toBeUndefined();
  });

  it('refuses an offer with an extractable key, or none, where DPoP is on', async () => {
    const extractable = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const dpop = { ...plain, dpop: true };
    expect(parseMessage(ours({ type: 'offer', session: { ...session(), keys: extractable } }), dpop)).toBeUndefined();
    expect(parseMessage(ours({ type: 'offer', session: session() }), dpop)).toBeUndefined();
  });

  it.each([
    ['a well-formed offer', ours({ type: 'offer', session: session() })],
    [
      'an offer with what step-ups added per API',
      ours({
        type: 'offer',
        session: { ...session(), added: { 'https://api.example': 'notes.write', 'https://b.example': 'b' } },
      }),
    ],
    ['an answer to an ask', ours({ type: 'offer', to: id, session: session() })],
    ['an ask', ours({ type: 'ask', from: id })],
    ['a renewal request', ours({ type: 'renew', id, expiresAt: NOW })],
    ['a renewal', ours({ type: 'renewed', id, sub: 'alice-sub', tokens })],
    [
      'a grant asked for',
      ours({ type: 'grant', id, from: id, params: { resource: 'https://api.example', scope: 'notes.read' } }),
    ],
    ['a granted token', ours({ type: 'granted', id, to: id, sub: 'alice-sub', tokens })],
    ['a refused grant', ours({ type: 'granted', id, to: id, sub: 'alice-sub', error: 'interaction_required' })],
    ['a rotation', ours({ type: 'rotated', id, sub: 'alice-sub', refreshToken: 'rt2' })],
    ['an end', ours({ type: 'ended', id })],
    ['a sign-out of the session', ours({ type: 'signed-out', id })],
  ])('takes %s', (_name, data) => {
    expect(parseMessage(data, plain)).toEqual(data);
  });
});

describe('failureCode', () => {
  it("names a grant's failure as the asking tab would classify it; a bug is invalid_response", () => {
    expect(failureCode(new AuthError('unreachable'))).toBe('unreachable');
    expect(failureCode(new RangeError('a bug'))).toBe('invalid_response');
  });
});

describe('idle messages', () => {
  it.each([
    [{ type: 'active', id, at: NOW }, true],
    [{ type: 'active', id, at: NOW + 2000 }, true],
    [{ type: 'active', id, at: NOW + 2001 }, false],
    [{ type: 'active', id, at: -1 }, false],
    [{ type: 'active', id, at: Infinity }, false],
    [{ type: 'active', id: 'short', at: NOW }, false],
    [{ type: 'idle', id, revoked: true }, true],
    [{ type: 'idle', id, revoked: 'yes' }, false],
  ])('%j valid: %s', (message, valid) => {
    expect(parseMessage({ app: APP, ...message }, plain) !== undefined).toBe(valid);
  });
});

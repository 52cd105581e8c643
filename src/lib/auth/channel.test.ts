// The channel's messages are input from any page of the origin: each is checked for shape, ids, sizes
// and keys before a tab uses it (what a tab then does with one is tested in tabs.test.ts).
import { describe, expect, it } from 'vitest';
import { parseMessage } from './channel';

describe('parseMessage', () => {
  const session = () => ({
    id: 'a'.repeat(43),
    tokens: { accessToken: 'at', refreshToken: 'rt', expiresAt: Date.now() + 60_000, subject: 'alice-sub' },
    user: { sub: 'alice-sub' },
  });

  it.each([
    ['not an object', 'signed-in'],
    ['an unknown type', { type: 'signed-in', tokens: session().tokens }],
    ['a session without a token', { type: 'session', session: { ...session(), tokens: undefined } }],
    [
      'a session with a huge token',
      { type: 'session', session: { ...session(), tokens: { ...session().tokens, accessToken: 'x'.repeat(20_000) } } },
    ],
    [
      'a token with a line break',
      { type: 'session', session: { ...session(), tokens: { ...session().tokens, accessToken: 'a\r\nb' } } },
    ],
    ['a session id that is no id', { type: 'session', session: { ...session(), id: '../x' } }],
    ['claims of another subject', { type: 'session', session: { ...session(), user: { sub: 'mallory' } } }],
    [
      'poisoned claims',
      { type: 'session', session: { ...session(), user: JSON.parse('{"sub":"alice-sub","__proto__":{"x":1}}') } },
    ],
    ['huge claims', { type: 'session', session: { ...session(), user: { sub: 'alice-sub', big: 'x'.repeat(70_000) } } }],
    ['keys where DPoP is off', { type: 'session', session: { ...session(), keys: {} } }],
    ['a renewal without an expiry', { type: 'renewed', id: 'a'.repeat(43), tokens: { accessToken: 'at' } }],
  ])('refuses %s', (_name, data) => {
    expect(parseMessage(data, false)).toBeUndefined();
  });

  it('refuses a session with an extractable key, or none, where DPoP is on', async () => {
    const extractable = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    expect(parseMessage({ type: 'session', session: { ...session(), keys: extractable } }, true)).toBeUndefined();
    expect(parseMessage({ type: 'session', session: session() }, true)).toBeUndefined();
  });

  it('takes a well-formed session', () => {
    expect(parseMessage({ type: 'session', session: session() }, false)).toBeDefined();
  });

  const id = 'a'.repeat(43);
  it.each([
    ['an ask from no id', { type: 'ask', from: '<script>' }],
    ['a renewal request without an expiry', { type: 'renew', id }],
    ['a grant asked for with a resource that is not text', { type: 'exchange', id, from: id, extra: { resource: 'a\nb' } }],
    [
      'a grant asked for with a huge scope',
      { type: 'exchange', id, from: id, extra: { resource: 'https://api.example', scope: 'x'.repeat(600) } },
    ],
    ['a grant answered with neither tokens nor a short error', { type: 'exchanged', id, to: id, error: 'x'.repeat(100) }],
    ['a rotated refresh token with a line break', { type: 'rotated', id, refreshToken: 'a\r\nb' }],
    ['an end without a session id', { type: 'ended' }],
    ['a sign-out naming no id', { type: 'signed-out', id: 42 }],
  ])('refuses %s', (_name, data) => {
    expect(parseMessage(data, false)).toBeUndefined();
  });

  it.each([
    ['an ask', { type: 'ask', from: id }],
    ['a grant asked for', { type: 'exchange', id, from: id, extra: { resource: 'https://api.example', scope: 'notes.read' } }],
    ['a refused grant', { type: 'exchanged', id, to: id, error: 'interaction_required' }],
    ['a rotation', { type: 'rotated', id, refreshToken: 'rt2' }],
    ['a sign-out of no session in particular', { type: 'signed-out' }],
  ])('takes %s', (_name, data) => {
    expect(parseMessage(data, false)).toEqual(data);
  });
});

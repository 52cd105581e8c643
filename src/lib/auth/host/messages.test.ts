// The page→engine wire (messages.ts): every command's check refuses a malformed body before the engine
// reads it, as any script of the origin can post to the engine; anything not a known command is nothing.
import { describe, expect, it } from 'vitest';
import { checks, parseRequest, type CommandType } from './messages';

const page = 'a'.repeat(36);
const pending = { state: 's', codeVerifier: 'v', returnTo: '/', silent: false, createdAt: 1 };

/** A well-formed body of each command, and bodies its check must refuse. */
const bodies: { [K in CommandType]: { valid: unknown[]; malformed: unknown[] } } = {
  join: {
    valid: [{ page }, { page: 'x'.repeat(16) }, { page: 'x'.repeat(128) }],
    malformed: [
      {},
      { page: 'x'.repeat(15) },
      { page: 'x'.repeat(129) },
      { page: `${page}/..` },
      { page: 1 },
      { page: { toString: () => page } },
    ],
  },
  authorize: {
    valid: [
      { returnTo: '/notes', ask: {} },
      {
        returnTo: '/'.repeat(512),
        prompt: 'none',
        ask: { scope: 'a b', acr_values: 'mfa', extraParams: { a: 'x'.repeat(2048) } },
      },
      { returnTo: '/', prompt: 'login', ask: {} },
    ],
    malformed: [
      { ask: {} },
      { returnTo: '/', prompt: 'consent', ask: {} },
      { returnTo: '/' },
      { returnTo: '/', ask: { scope: 'a  b' } },
      { returnTo: '/', ask: { acr_values: 3 } },
      { returnTo: '/', ask: { extraParams: { a: 1 } } },
      { returnTo: '/', ask: { extraParams: { a: 'x'.repeat(2049) } } },
      // Every value is bounded, not only the first.
      { returnTo: '/', ask: { extraParams: { a: 'ok', b: 'x'.repeat(2049) } } },
      { returnTo: '/', ask: { extraParams: ['x'] } },
      { returnTo: '/', ask: { extraParams: 'x' } },
      { returnTo: '/', ask: 'x' },
      { returnTo: 1, ask: {} },
      { returnTo: '/'.repeat(513), ask: {} },
    ],
  },
  complete: {
    valid: [
      { response: 'code=c&state=s', pending },
      {
        response: 'x'.repeat(32 * 1024),
        pending: { ...pending, state: 'x'.repeat(8192), nonce: 'n', stepUp: { scope: 'openid' } },
      },
    ],
    malformed: [
      { response: 'code=c', pending: { ...pending, codeVerifier: 1 } },
      { response: 'code=c', pending: { ...pending, silent: 'no' } },
      { response: 'code=c', pending: { ...pending, createdAt: Infinity } },
      { response: 'code=c', pending: { ...pending, stepUp: 'openid' } },
      { response: 'code=c', pending: { ...pending, nonce: 1 } },
      { response: 'code=c', pending: { ...pending, state: 'x'.repeat(8193) } },
      { response: 'code=c', pending: { ...pending, returnTo: undefined } },
      { response: 'code=c', pending: 'x' },
      { response: 'x'.repeat(32 * 1024 + 1), pending },
      { pending },
    ],
  },
  signOut: { valid: [{ reason: 'user' }], malformed: [{}, { reason: 'idle' }, { reason: 'other-tab' }] },
  token: {
    valid: [{ origin: 'https://api.test' }, { origin: 'x'.repeat(2048) }],
    malformed: [{}, { origin: 1 }, { origin: 'x'.repeat(2049) }],
  },
  renew: {
    valid: [{ refused: 'at-1' }, { refused: ' ~'.repeat(8 * 1024) }],
    malformed: [{}, { refused: '' }, { refused: 'at\n1' }, { refused: 'é' }],
  },
  forget: {
    valid: [{ origin: 'https://api.test', accessToken: 'at-1' }],
    malformed: [
      { origin: 'https://api.test' },
      { accessToken: 'at-1' },
      { origin: 'https://api.test', accessToken: '' },
      { origin: 'x'.repeat(2049), accessToken: 'at-1' },
    ],
  },
  end: { valid: [{ refused: 'at-1' }], malformed: [{}, { refused: 'a'.repeat(16 * 1024 + 1) }] },
  active: { valid: [{}], malformed: [{ now: 1 }] },
  wake: { valid: [{}], malformed: [{ at: 0 }] },
  restore: { valid: [{}], malformed: [{ prompt: 'login' }] },
  framed: {
    valid: [
      { state: 's', response: 'code=c&state=s' },
      { state: 's'.repeat(8192), response: 'x'.repeat(32 * 1024) },
      { state: 's', failure: 'blocked' },
      { state: 's', failure: 'timeout' },
    ],
    malformed: [
      { response: 'code=c' },
      { state: 's' },
      { state: 's'.repeat(8193), response: 'code=c' },
      { state: 's', response: 'x'.repeat(32 * 1024 + 1) },
      { state: 's', failure: 'login_required' },
      { state: 1, failure: 'blocked' },
      { state: 's', response: 1 },
    ],
  },
};

/** Not an object at all: refused by every command. */
const notObjects = [undefined, null, 'body', 1, []];

describe.each(Object.entries(bodies))('the check of %s', (type, { valid, malformed }) => {
  const check = checks[type as CommandType];

  it.each(valid)('takes %j, at the limits too', (body) => {
    expect(check(body)).toBe(true);
    expect(parseRequest({ id: 7, type, body })).toEqual({ id: 7, type, body });
  });

  it.each([...malformed, ...notObjects])('refuses %j, and the request with it', (body) => {
    expect(check(body)).toBe(false);
    expect(parseRequest({ id: 7, type, body })).toBeUndefined();
  });
});

describe('parseRequest', () => {
  it.each([
    ['an unknown type', { id: 1, type: 'steal', body: {} }],
    ["an Object prototype's member as type", { id: 1, type: 'toString', body: {} }],
    ['no id', { type: 'wake', body: {} }],
    ['a fractional id', { id: 1.5, type: 'wake', body: {} }],
    ['an id as text', { id: '1', type: 'wake', body: {} }],
    ['a type that is not text', { id: 1, type: ['wake'], body: {} }],
    ['not an object', 'wake'],
    ['null', null],
  ])('ignores %s', (_, data) => {
    expect(parseRequest(data)).toBeUndefined();
  });
});

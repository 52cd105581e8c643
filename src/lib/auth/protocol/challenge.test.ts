// A resource server's challenges through auth.fetch: every form of WWW-Authenticate header (parsed by
// oauth4webapi) ends as the right typed AuthError with validated fields, or as a safe generic answer.
import { describe, expect, it } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import { API_URL, challengeHeader } from '../__fixtures__/fake-idp';
import { MAX_CHALLENGE_CHARS, pickChallenge } from './challenge';
import { MAX_AGE_LIMIT_S } from './scope';
import { AuthError } from './errors';

/** Every scope the challenges below name: the API origin may ask for each (else scope_not_allowed, apis.test.ts). */
const ASKED = [
  'notes.read notes.write api.write x a b s https://api.example.com/notes.write',
  `${'a'.repeat(255)} ${'b'.repeat(256)}`,
].join(' ');
const h = useAuthHarness({ stepUpScopes: ASKED });

/** What auth.fetch settles to for an API answer with this status and header: the AuthError, or the response's status. */
async function outcome(status: number, header: string) {
  const tab = await h.signIn();
  h.idp.api = () => challengeHeader(status, header);
  try {
    const response = await tab.auth.fetch(API_URL);
    return { status: response.status, www: response.headers.get('www-authenticate') };
  } catch (err) {
    expect(err).toBeInstanceOf(AuthError);
    return (err as AuthError).toJSON();
  }
}

describe('insufficient_scope (RFC 6750 §3.1)', () => {
  it.each([
    ['quoted', 'Bearer error="insufficient_scope", scope="notes.write"', 'notes.write'],
    ['unquoted', 'Bearer error=insufficient_scope, scope=notes.write', 'notes.write'],
    [
      'several tokens',
      'Bearer realm="api", error="insufficient_scope", scope="notes.read notes.write"',
      'notes.read notes.write',
    ],
    ['names in any case', 'bearer ERROR=insufficient_scope, Scope="api.write"', 'api.write'],
    ['no comma between parameters', 'Bearer error="insufficient_scope" scope="x"', 'x'],
    [
      'URI scope token',
      'Bearer error="insufficient_scope", scope="https://api.example.com/notes.write"',
      'https://api.example.com/notes.write',
    ],
    ['after a Basic challenge', 'Basic realm="x", Bearer error="insufficient_scope", scope="a b"', 'a b'],
    ['in a DPoP challenge only', 'DPoP algs="ES256" error="insufficient_scope", scope="a"', 'a'],
    ['after a DPoP challenge with no error', 'DPoP algs="ES256", Bearer error="insufficient_scope", scope="b"', 'b'],
  ])('%s: the typed error carries the scope', async (_name, header, scope) => {
    expect(await outcome(403, header)).toEqual({
      code: 'insufficient_scope',
      oauthError: 'insufficient_scope',
      status: 403,
      scope,
    });
  });

  it('a 401 with insufficient_scope is the same typed error, never a renewal', async () => {
    h.idp.refreshTokens = true;
    expect(await outcome(401, 'Bearer error="insufficient_scope", scope="x"')).toMatchObject({
      code: 'insufficient_scope',
      scope: 'x',
    });
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
  });

  it.each([
    ['without scope', 'Bearer error="insufficient_scope"'],
    ['a quote inside (escaped)', 'Bearer error="insufficient_scope", scope="a\\"b"'],
    ['a backslash inside', 'Bearer error="insufficient_scope", scope="a\\\\b"'],
    ['two spaces', 'Bearer error="insufficient_scope", scope="a  b"'],
    ['a leading space', 'Bearer error="insufficient_scope", scope=" a"'],
    ['empty', 'Bearer error="insufficient_scope", scope=""'],
    ['non-ASCII', 'Bearer error="insufficient_scope", scope="notes.wrïte"'],
    ['a tab', 'Bearer error="insufficient_scope", scope="a\tb"'],
    ['over 512 characters', `Bearer error="insufficient_scope", scope="${'a'.repeat(513)}"`],
  ])('scope %s: the typed error without a scope', async (_name, header) => {
    const result = await outcome(403, header);
    expect(result).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(result).not.toHaveProperty('scope');
  });

  it('a scope of exactly 512 characters is kept', async () => {
    const scope = `${'a'.repeat(255)} ${'b'.repeat(256)}`;
    expect(await outcome(403, `Bearer error="insufficient_scope", scope="${scope}"`)).toMatchObject({ scope });
  });
});

describe('insufficient_user_authentication (RFC 9470 §3)', () => {
  it.each([
    ['quoted', 'Bearer error="insufficient_user_authentication", acr_values="urn:mace:incommon:iap:silver", max_age="300"'],
    [
      'unquoted max_age',
      'Bearer error="insufficient_user_authentication", acr_values="urn:mace:incommon:iap:silver", max_age=300',
    ],
    ['DPoP', 'DPoP error="insufficient_user_authentication", acr_values="urn:mace:incommon:iap:silver", max_age=300'],
  ])('%s: the typed error carries acr_values and max_age', async (_name, header) => {
    expect(await outcome(401, header)).toEqual({
      code: 'insufficient_user_authentication',
      oauthError: 'insufficient_user_authentication',
      status: 401,
      acr_values: 'urn:mace:incommon:iap:silver',
      max_age: 300,
    });
  });

  it('never renews: a fresher sign-in is the only way forward', async () => {
    h.idp.refreshTokens = true;
    await outcome(401, 'Bearer error="insufficient_user_authentication", max_age=0');
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(h.idp.to(API_URL)).toHaveLength(1);
  });

  it('max_age=0 (sign in again now) is kept; acr_values alone is enough', async () => {
    expect(await outcome(401, 'Bearer error="insufficient_user_authentication", max_age=0')).toMatchObject({ max_age: 0 });
    const acr = await outcome(401, 'Bearer error="insufficient_user_authentication", acr_values="a b"');
    expect(acr).toMatchObject({ acr_values: 'a b' });
    expect(acr).not.toHaveProperty('max_age');
  });

  it.each([
    ['negative', '-1'],
    ['a fraction', '1.5'],
    ['a word', 'soon'],
    ['an exponent', '1e3'],
    ['over a year', String(MAX_AGE_LIMIT_S + 1)],
    ['huge', '99999999999999999999'],
    ['empty', '""'],
    ['a hex number', '0x10'],
  ])('max_age %s is dropped', async (_name, value) => {
    const result = await outcome(401, `Bearer error="insufficient_user_authentication", max_age=${value}`);
    expect(result).toMatchObject({ code: 'insufficient_user_authentication', status: 401 });
    expect(result).not.toHaveProperty('max_age');
  });

  it('acr_values that are not a token list are dropped', async () => {
    const result = await outcome(401, 'Bearer error="insufficient_user_authentication", acr_values="a\\"b", max_age=60');
    expect(result).toMatchObject({ max_age: 60 });
    expect(result).not.toHaveProperty('acr_values');
  });

  it('scope is not taken from a challenge of another error, nor acr_values from insufficient_scope', async () => {
    const result = await outcome(403, 'Bearer error="insufficient_scope", scope="a", acr_values="b", max_age=1');
    expect(result).toEqual({ code: 'insufficient_scope', oauthError: 'insufficient_scope', status: 403, scope: 'a' });
    const other = await outcome(401, 'Bearer error="insufficient_user_authentication", scope="a", max_age=1');
    expect(other).not.toHaveProperty('scope');
  });
});

describe('several challenges, other errors, malformed and oversized headers', () => {
  it("the token's own scheme first: a Bearer client takes the Bearer challenge's error", async () => {
    const header = 'DPoP error="insufficient_user_authentication", max_age=5, Bearer error="insufficient_scope", scope="s"';
    expect(await outcome(403, header)).toMatchObject({ code: 'insufficient_scope', scope: 's' });
  });

  it('of two Bearer challenges the first with an error counts', async () => {
    const header = 'Bearer realm="a", Bearer error="insufficient_scope", scope="s", Bearer error="invalid_token"';
    expect(await outcome(403, header)).toMatchObject({ code: 'insufficient_scope', scope: 's' });
  });

  it.each([
    ['another error', 'Bearer error="invalid_request"', 'invalid_request'],
    ['no error', 'Bearer realm="api"', 'unauthorized'],
    ['only a Basic challenge', 'Basic realm="api"', 'unauthorized'],
    ['a token68 instead of parameters', 'Bearer error=', 'unauthorized'],
    ['an error of a prototype key', 'Bearer error="constructor"', 'constructor'],
  ])('%s: a generic http_error', async (_name, header, oauthError) => {
    expect(await outcome(401, header)).toEqual({ code: 'http_error', oauthError, status: 401 });
  });

  it('a long error value is cut', async () => {
    expect(await outcome(401, `Bearer error="${'e'.repeat(500)}"`)).toMatchObject({
      code: 'http_error',
      oauthError: 'e'.repeat(64),
    });
  });

  it.each([
    ['an unterminated quote', 'Bearer error="insufficient_scope'],
    ['only commas', ',,,'],
    ['only "="', '='],
    ['a quoted string for a scheme', '"quoted"'],
    ['a token68 before parameters', 'Bearer abc==, error="insufficient_scope"'],
  ])('%s: the answer as fetch gives it', async (_name, header) => {
    expect(await outcome(401, header)).toEqual({ status: 401, www: header });
  });

  it(`a header over ${MAX_CHALLENGE_CHARS} characters is not parsed: the answer comes back without it`, async () => {
    const header = `Bearer error="insufficient_scope", scope="x", ${'a=b, '.repeat(MAX_CHALLENGE_CHARS / 5)}`;
    expect(await outcome(403, header)).toEqual({ status: 403, www: null });
  });

  it('a header at the limit is parsed', async () => {
    const start = 'Bearer error="insufficient_scope", scope="x", realm="';
    const header = `${start}${'r'.repeat(MAX_CHALLENGE_CHARS - start.length - 1)}"`;
    expect(header).toHaveLength(MAX_CHALLENGE_CHARS);
    expect(await outcome(403, header)).toMatchObject({ code: 'insufficient_scope', scope: 'x' });
  });

  it('a challenge on another status is not an error', async () => {
    expect(await outcome(200, 'Bearer error="insufficient_scope", scope="x"')).toMatchObject({ status: 200 });
  });
});

describe('pickChallenge', () => {
  it('ignores challenges of other schemes and without an error', () => {
    const challenges = [
      { scheme: 'basic', parameters: { error: 'x' } },
      { scheme: 'bearer', parameters: {} },
      { scheme: 'dpop', parameters: { error: 'insufficient_scope' } },
    ] as const;
    expect(pickChallenge([...challenges], 'bearer')).toBe(challenges[2]);
    expect(pickChallenge([challenges[0], challenges[1]], 'dpop')).toBeUndefined();
  });
});

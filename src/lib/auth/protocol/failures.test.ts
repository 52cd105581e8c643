// The one place where failures of oauth4webapi and the network become AuthErrors (failures.ts): known
// ones mapped with their cause kept, what a server said bounded, a challenge read, bugs thrown on.
import { expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';
import { toAuthError } from './failures';

it('keeps an AuthError as it is', () => {
  const err = new AuthError('timeout', { host: 'h' });
  expect(toAuthError(err)).toBe(err);
});

it('maps an abort and a response that is not JSON, keeping the original as cause', () => {
  const abort = new DOMException('stopped', 'AbortError');
  expect(toAuthError(abort)).toMatchObject({ code: 'aborted', cause: abort });
  const syntax = new SyntaxError('Unexpected token <');
  expect(toAuthError(syntax)).toMatchObject({ code: 'invalid_response', cause: syntax });
});

it('lets a bug stay a bug: a TypeError is thrown on, not dressed up as an AuthError', () => {
  const bug = new TypeError('x is not a function');
  expect(() => toAuthError(bug)).toThrow(bug);
});

it.each([
  ['access_denied', 'cancelled'],
  ['login_required', 'login_required'],
  ['consent_required', 'login_required'],
  ['server_error', 'authorization_failed'],
])('an authorization response error %s is %s, its description bounded', (error, code) => {
  const err = new oauth.AuthorizationResponseError('x', {
    cause: new URLSearchParams({ error, error_description: 'd'.repeat(500) }),
  });
  expect(toAuthError(err)).toMatchObject({ code, oauthError: error, description: 'd'.repeat(200), cause: err });
});

it.each([
  ['invalid_grant', 'invalid_grant'],
  ['invalid_client', 'token_error'],
])('a token endpoint error %s is %s, with its status', (error, code) => {
  const response = new Response(null, { status: 400 });
  const err = new oauth.ResponseBodyError('x', { cause: { error, error_description: 'no' }, response });
  expect(toAuthError(err)).toMatchObject({ code, oauthError: error, description: 'no', status: 400, cause: err });
});

/** The error oauth4webapi raises for a protected resource's challenge (RFC 6750 §3), e.g. at userinfo. */
async function challengeFrom(status: number, header: string) {
  const answer = async () => new Response(null, { status, headers: { 'www-authenticate': header } });
  return oauth
    .protectedResourceRequest('t', 'GET', new URL('https://auth.example/userinfo'), new Headers(), null, {
      [oauth.customFetch]: answer,
    })
    .catch((err: unknown) => err);
}

it.each([
  [401, 'Bearer error="invalid_token"', 'session_expired', 'invalid_token'],
  [403, 'DPoP error="insufficient_scope", algs="ES256"', 'insufficient_scope', 'insufficient_scope'],
  [400, 'Bearer error="invalid_request"', 'http_error', 'invalid_request'],
  [401, 'Basic realm="x"', 'http_error', 'unauthorized'],
])('a %i challenge %s at userinfo is %s', async (status, header, code, oauthError) => {
  const err = await challengeFrom(status, header);
  expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  expect(toAuthError(err)).toMatchObject({ code, oauthError, status, cause: err });
});

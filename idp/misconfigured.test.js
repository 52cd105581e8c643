// The local provider configured wrongly on purpose (startIdp options), as check-config and the e2e
// tests meet it: each option does what it says, and only that.
import { describe, expect, test } from 'vitest';

import { startIdp } from './server.js';
import {
  APP,
  APP_ORIGIN,
  OTHER_ORIGIN,
  TestBrowser,
  authorize,
  callback,
  exchangeCode,
  getWithBearer,
  pkce,
  signIn,
  start,
  tokenRequest,
} from './test-helpers.js';

/** A made-up refresh token: the answer says whether the client may use the grant at all. */
const bogusRefresh = { grant_type: 'refresh_token', refresh_token: 'not-a-token' };

/**
 * An authorization request as the app's hidden frame sends it.
 * @param {{ accountUrl: string, clientId: string }} idp
 */
function framedAuthorize(idp) {
  const url = new URL('/connect/authorize', idp.accountUrl);
  url.search = new URLSearchParams({
    client_id: idp.clientId,
    response_type: 'code',
    scope: 'openid',
    redirect_uri: APP,
    state: 'st',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    prompt: 'none',
  }).toString();
  return fetch(url, { redirect: 'manual', headers: { 'Sec-Fetch-Dest': 'iframe' } });
}

/**
 * @param {{ accountUrl: string }} idp
 * @param {string} path
 * @param {string} method
 */
const preflight = (idp, path, method = 'POST') =>
  fetch(new URL(path, idp.accountUrl), {
    method: 'OPTIONS',
    headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'dpop' },
  });

describe('a provider configured wrongly on purpose', () => {
  test('refreshTokens: false issues no refresh token and refuses the grant, as oidc-provider words it', async () => {
    const refusing = await start({ refreshTokens: false });
    const { callback: done, verifier } = await signIn(refusing);
    const tokens = await exchangeCode(refusing, done, verifier);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens).not.toHaveProperty('refresh_token');
    const refused = await tokenRequest(refusing, bogusRefresh);
    expect(refused.status).toBe(400);
    // Not RFC 6749's unauthorized_client: oidc-provider says invalid_request, naming the grant type.
    expect(await refused.json()).toEqual({
      error: 'invalid_request',
      error_description: 'requested grant type is not allowed for this client',
    });

    // By default the grant is the client's: a made-up token is merely invalid.
    const idp = await start();
    expect(await (await tokenRequest(idp, bogusRefresh)).json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('allowFraming: false answers a framed authorization request with a page that forbids framing', async () => {
    const refusing = await start({ allowFraming: false });
    const framed = await framedAuthorize(refusing);
    expect(framed.status).toBe(200);
    expect(framed.headers.get('location')).toBeNull();
    expect(framed.headers.get('x-frame-options')).toBe('DENY');
    expect(framed.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await framed.text()).toContain('cannot be shown in a frame');
    // A top-level request is served as usual.
    const stranger = callback((await authorize(refusing, new TestBrowser(), { prompt: 'none' })).result);
    expect(stranger.searchParams.get('error')).toBe('login_required');

    // By default the frame's request comes back to the app by redirect.
    const idp = await start();
    const back = await framedAuthorize(idp);
    expect(back.status).toBe(303);
    expect(new URL(back.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
  });

  test('corsOrigins: the token, userinfo and revocation endpoints answer CORS for those origins only', async () => {
    const idp = await start({ corsOrigins: [OTHER_ORIGIN] });
    for (const [path, method] of [
      ['/connect/token', 'POST'],
      ['/connect/revocation', 'POST'],
    ]) {
      const refused = await preflight(idp, path, method);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    const userinfo = await fetch(`${idp.authUrl}/connect/userinfo`, {
      method: 'OPTIONS',
      headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'GET' },
    });
    expect(userinfo.status).toBe(403);

    const fromApp = await tokenRequest(idp, bogusRefresh, APP_ORIGIN);
    expect(fromApp.headers.get('access-control-allow-origin')).toBeNull();
    expect(await fromApp.json()).toMatchObject({ error: 'invalid_request' });
    const fromOther = await tokenRequest(idp, bogusRefresh, OTHER_ORIGIN);
    expect(fromOther.headers.get('access-control-allow-origin')).toBe(OTHER_ORIGIN);
    expect(await fromOther.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('endSessionGet: false refuses a GET at the end-session endpoint with 405 and takes the same request by POST', async () => {
    const idp = await start({ endSessionGet: false });
    const params = { client_id: idp.clientId, post_logout_redirect_uri: APP, state: 'bye' };
    const endSession = new URL('/connect/endsession', idp.accountUrl);
    endSession.search = new URLSearchParams(params).toString();
    const get = await fetch(endSession, { redirect: 'manual' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');

    const browser = new TestBrowser();
    const post = (/** @type {Record<string, string>} */ form) =>
      browser.request(new URL('/connect/endsession', idp.accountUrl), { method: 'POST', form });
    // Without a session, oidc-provider's auto-submitting form: the request was taken.
    const taken = await post(params);
    expect(taken.status).toBe(200);
    expect(await taken.text()).toContain('/connect/endsession/confirm');
    // The form's parameters reach oidc-provider, which checks them as it checks a GET's.
    expect((await post({ ...params, post_logout_redirect_uri: `${APP}elsewhere` })).status).toBe(400);
  });

  test('issuer: the provider announces and signs with another issuer than its URL', async () => {
    const issuer = 'https://issuer.example.test';
    const idp = await start({ issuer });
    expect(idp.issuer).toBe(issuer);
    const discovery = await (await fetch(`${idp.accountUrl}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({ issuer, token_endpoint: `${idp.accountUrl}/connect/token` });
    const { callback: done, verifier } = await signIn(idp);
    expect(done.searchParams.get('iss')).toBe(issuer);
    const tokens = await exchangeCode(idp, done, verifier);
    expect((await getWithBearer(`${idp.authUrl}/connect/userinfo`, tokens.access_token)).status).toBe(200);
  });

  test('malformed options are refused before anything listens', async () => {
    await expect(startIdp({ quiet: true, refreshTokens: /** @type {any} */ ('no') })).rejects.toThrow(
      'startIdp: refreshTokens must be a boolean',
    );
    await expect(startIdp({ quiet: true, allowFraming: /** @type {any} */ (0) })).rejects.toThrow(
      'startIdp: allowFraming must be a boolean',
    );
    await expect(startIdp({ quiet: true, corsOrigins: [`${APP_ORIGIN}/`] })).rejects.toThrow(
      'startIdp: corsOrigins must be a list of bare origins',
    );
    await expect(startIdp({ quiet: true, issuer: 'not a url' })).rejects.toThrow('startIdp: issuer must be an absolute URL');
  });
});

// The demo API as a resource server (RFC 8707 resource indicators), the step-up for a scope it
// asks for (RFC 6750 §3.1) and its fresh-login route (RFC 9470), over real HTTP on ephemeral ports.
import { describe, expect, onTestFinished, test, vi } from 'vitest';

import {
  ALL_SCOPES,
  APP_ORIGIN,
  authorize,
  callback,
  dpopKey,
  dpopProof,
  exchangeCode,
  getWithBearer,
  page,
  pkce,
  refreshForApi,
  signIn,
  signInForApi,
  signInWithDpop,
  start,
  submit,
  tokenRequest,
} from './test-helpers.js';

/** @param {string} url @param {string} token @param {FormData} body @param {Record<string, string>} [headers] */
function post(url, token, body, headers = { Authorization: `Bearer ${token}` }) {
  return fetch(url, { method: 'POST', headers, body });
}

/** @param {string} title */
function note(title) {
  const data = new FormData();
  data.append('title', title);
  return data;
}

/** Moves only the wall clock forward, as if `seconds` had passed, until the test ends. */
function advanceClock(/** @type {number} */ seconds) {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + seconds * 1000 });
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

describe('the demo API as a resource server', () => {
  test('sign-in naming the API: the code gives the userinfo token, a refresh with resource gives the API token', async () => {
    const idp = await start();
    const {
      browser,
      callback: done,
      verifier,
    } = await signIn(idp, {
      scope: `${ALL_SCOPES} notes.read`,
      params: { resource: idp.apiUrl },
    });
    const signInTokens = await exchangeCode(idp, done, verifier);
    // The code exchange without `resource` gets OpenID scopes only and no audience: userinfo takes it.
    expect(signInTokens.scope).toBe(ALL_SCOPES);
    const userinfo = `${idp.authUrl}/connect/userinfo`;
    expect((await getWithBearer(userinfo, signInTokens.access_token)).status).toBe(200);
    expect((await getWithBearer(`${idp.apiUrl}/api/greeting`, signInTokens.access_token)).status).toBe(200);

    const apiTokens = await refreshForApi(idp, signInTokens.refresh_token, { scope: 'notes.read' });
    expect(apiTokens).toMatchObject({ token_type: 'Bearer', scope: 'notes.read', refresh_token: expect.any(String) });
    expect(apiTokens.refresh_token).not.toBe(signInTokens.refresh_token); // rotation as before
    expect(apiTokens.id_token).toBeUndefined();
    // It is the API's alone: userinfo refuses it (for lacking openid, before it looks at the
    // audience), the notes and the greeting take it.
    expect((await getWithBearer(userinfo, apiTokens.access_token)).status).toBe(403);
    const notes = await getWithBearer(`${idp.apiUrl}/api/notes`, apiTokens.access_token, { Origin: APP_ORIGIN });
    expect(notes.status).toBe(200);
    const greeting = await getWithBearer(`${idp.apiUrl}/api/greeting`, apiTokens.access_token);
    expect(await greeting.json()).toMatchObject({ greeting: 'Hello, Alice Liddell!', scope: 'notes.read' });

    // A refresh without `resource` is the sign-in token again.
    const renewed = /** @type {Record<string, string>} */ (
      await (await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: apiTokens.refresh_token })).json()
    );
    expect(renewed.scope).toBe(ALL_SCOPES);
    expect((await getWithBearer(userinfo, renewed.access_token)).status).toBe(200);

    // Another resource, or an API scope the sign-in did not ask for, is refused.
    const refresh = (/** @type {Record<string, string>} */ params) =>
      tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: renewed.refresh_token, ...params });
    const foreign = await refresh({ resource: 'https://api.example.com', scope: 'notes.read' });
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({ error: 'invalid_target' });
    const write = await refresh({ resource: idp.apiUrl, scope: 'notes.write' });
    expect(write.status).toBe(400);
    expect(await write.json()).toMatchObject({ error: 'invalid_scope' });
    // An authorization naming an unknown resource goes back to the app with invalid_target.
    const unknown = callback((await authorize(idp, browser, { params: { resource: 'https://api.example.com' } })).result);
    expect(unknown.searchParams.get('error')).toBe('invalid_target');
  });

  test('revoking the refresh token ends the API token too', async () => {
    const idp = await start();
    const { signInTokens, apiTokens } = await signInForApi(idp);
    const revoked = await fetch(`${idp.accountUrl}/connect/revocation`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: APP_ORIGIN },
      body: new URLSearchParams({ client_id: idp.clientId, token: apiTokens.refresh_token }),
    });
    expect(revoked.status).toBe(200);
    expect((await getWithBearer(`${idp.apiUrl}/api/notes`, apiTokens.access_token)).status).toBe(401);
    expect((await getWithBearer(`${idp.authUrl}/connect/userinfo`, signInTokens.access_token)).status).toBe(401);
  });

  test('notes.write after a step-up: the API names the scope, the provider asks for consent, then grants it', async () => {
    const idp = await start();
    const notes = `${idp.apiUrl}/api/notes`;
    const { browser, apiTokens } = await signInForApi(idp);

    const refused = await post(notes, apiTokens.access_token, note('draft'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="notes.write"');

    // The step-up: the session's scopes plus the one the API asked for, naming the API again.
    const { verifier, challenge } = pkce();
    const scope = `${ALL_SCOPES} notes.read notes.write`;
    const { result } = await authorize(idp, browser, { scope, challenge, params: { resource: idp.apiUrl } });
    const consent = page(result);
    expect(consent.html).toContain('Allow access?');
    expect(consent.html).toContain('<code>notes.write</code>');
    expect(consent.html).not.toContain('<code>notes.read</code>'); // granted already
    const done = callback(await submit(browser, consent, '/consent', { decision: 'allow' }));
    const signInTokens = await exchangeCode(idp, done, verifier);
    const writer = await refreshForApi(idp, signInTokens.refresh_token, { scope: 'notes.read notes.write' });
    expect(writer.scope).toBe('notes.read notes.write');
    expect((await post(notes, writer.access_token, note('draft'))).status).toBe(201);

    // The grant remembers it: asking again needs no consent.
    expect(
      callback((await authorize(idp, browser, { scope, params: { resource: idp.apiUrl } })).result).searchParams.has('code'),
    ).toBe(true);
  });

  test('DPoP: the API token is bound to the same key, and its challenges use the DPoP scheme', async () => {
    const idp = await start();
    const key = await dpopKey();
    const signInTokens = await signInWithDpop(idp, key, { scope: `${ALL_SCOPES} notes.read`, params: { resource: idp.apiUrl } });
    const tokenUrl = `${idp.accountUrl}/connect/token`;
    const apiTokens = await refreshForApi(idp, signInTokens.refresh_token, undefined, {
      DPoP: await dpopProof(key, { htm: 'POST', htu: tokenUrl }),
    });
    expect(apiTokens).toMatchObject({ token_type: 'DPoP', scope: 'notes.read' });
    const token = apiTokens.access_token;

    const notes = `${idp.apiUrl}/api/notes`;
    /** @param {string} method */
    const proofFor = async (method) => ({
      Authorization: `DPoP ${token}`,
      DPoP: await dpopProof(key, { htm: method, htu: notes, accessToken: token }),
    });
    expect((await fetch(notes, { headers: await proofFor('GET') })).status).toBe(200);
    expect((await getWithBearer(notes, token)).status).toBe(401);
    const refused = await post(notes, token, note('x'), await proofFor('POST'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe('DPoP error="insufficient_scope", scope="notes.write"');

    const signInToken = signInTokens.access_token;
    const audience = await fetch(notes, {
      headers: {
        Authorization: `DPoP ${signInToken}`,
        DPoP: await dpopProof(key, { htm: 'GET', htu: notes, accessToken: signInToken }),
      },
    });
    expect(audience.status).toBe(401);
    expect(audience.headers.get('www-authenticate')).toBe(
      'DPoP error="invalid_token", error_description="access token audience is not this API", algs="ES256 Ed25519 EdDSA"',
    );
  });
});

describe('/api/sensitive: a login no older than max_age (RFC 9470)', () => {
  test('a recent login passes; an old one gets the challenge; a login with max_age passes again', async () => {
    const idp = await start({ sensitiveMaxAge: 30 });
    const sensitive = `${idp.apiUrl}/api/sensitive`;
    const { browser, signInTokens, apiTokens } = await signInForApi(idp);

    const fresh = await getWithBearer(sensitive, signInTokens.access_token);
    expect(fresh.status).toBe(200);
    const first = /** @type {{ auth_time: number }} */ (await fresh.json());
    expect(first).toMatchObject({ sub: 'u-alice-7f3a', max_age: 30, auth_time: expect.any(Number) });
    expect(Math.abs(first.auth_time - Date.now() / 1000)).toBeLessThan(10);
    expect((await getWithBearer(sensitive, apiTokens.access_token)).status).toBe(200);

    advanceClock(31);
    for (const token of [signInTokens.access_token, apiTokens.access_token]) {
      const stale = await getWithBearer(sensitive, token, { Origin: APP_ORIGIN });
      expect(stale.status).toBe(401);
      expect(stale.headers.get('www-authenticate')).toBe(
        'Bearer error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age=30',
      );
      expect(stale.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    }
    // A refresh is no new login: its token keeps the old auth_time.
    const refreshed = await refreshForApi(idp, apiTokens.refresh_token);
    expect((await getWithBearer(sensitive, refreshed.access_token)).status).toBe(401);

    // The step-up: max_age makes the provider ask for the password despite the live session.
    const { verifier, challenge } = pkce();
    const { result } = await authorize(idp, browser, {
      scope: `${ALL_SCOPES} notes.read`,
      challenge,
      params: { resource: idp.apiUrl, max_age: '30' },
    });
    const login = page(result);
    expect(login.html).toContain('<h1>Sign in</h1>');
    const done = callback(await submit(browser, login, '/login', { username: 'alice', password: 'wonderland' }));
    const again = await exchangeCode(idp, done, verifier);
    const ok = await getWithBearer(sensitive, again.access_token);
    expect(ok.status).toBe(200);
    const second = /** @type {{ auth_time: number }} */ (await ok.json());
    expect(second.auth_time).toBeGreaterThanOrEqual(first.auth_time + 31);
    const apiAgain = await refreshForApi(idp, again.refresh_token);
    expect(await (await getWithBearer(sensitive, apiAgain.access_token)).json()).toMatchObject({
      auth_time: second.auth_time,
    });
  });

  test('the sign-in token needs service.api there like at the greeting; a DPoP token gets a DPoP challenge', async () => {
    const idp = await start({ sensitiveMaxAge: 5 });
    const sensitive = `${idp.apiUrl}/api/sensitive`;
    const narrow = await signIn(idp, { scope: 'openid profile' });
    const narrowToken = (await exchangeCode(idp, narrow.callback, narrow.verifier)).access_token;
    const forbidden = await getWithBearer(sensitive, narrowToken);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="service.api"');

    const key = await dpopKey();
    const { access_token: token } = await signInWithDpop(idp, key);
    advanceClock(6);
    const stale = await fetch(sensitive, {
      headers: {
        Authorization: `DPoP ${token}`,
        DPoP: await dpopProof(key, { htm: 'GET', htu: sensitive, accessToken: token }),
      },
    });
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toBe(
      'DPoP error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age=5',
    );
  });
});

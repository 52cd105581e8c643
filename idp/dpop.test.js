// DPoP (RFC 9449) at the provider (token, refresh, userinfo on the auth origin)
// and at the demo API, over real HTTP on ephemeral loopback ports.
import { describe, expect, test } from 'vitest';

import {
  APP,
  APP_ORIGIN,
  dpopKey,
  dpopProof,
  exchangeCode,
  getWithBearer,
  signIn,
  signInWithDpop,
  start,
  tokenRequest,
} from './test-helpers.js';

/**
 * @param {string} url
 * @param {string} token
 * @param {string} proof
 * @param {RequestInit} [init]
 */
function withDpop(url, token, proof, init = {}) {
  return fetch(url, { ...init, headers: { ...init.headers, Authorization: `DPoP ${token}`, DPoP: proof } });
}

describe('DPoP-bound tokens', () => {
  test('a token request with a proof gets a bound access token, and a bound refresh token', async () => {
    const idp = await start();
    const key = await dpopKey();
    const tokens = await signInWithDpop(idp, key);
    expect(tokens.token_type).toBe('DPoP');

    const tokenUrl = `${idp.accountUrl}/connect/token`;
    const refresh = (/** @type {Record<string, string>} */ headers) =>
      tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, APP_ORIGIN, headers);

    const withoutProof = await refresh({});
    expect(withoutProof.status).toBe(400);
    expect(await withoutProof.json()).toMatchObject({ error: 'invalid_grant' });
    const otherKey = await refresh({ DPoP: await dpopProof(await dpopKey(), { htm: 'POST', htu: tokenUrl }) });
    expect(otherKey.status).toBe(400);
    expect(await otherKey.json()).toMatchObject({ error: 'invalid_grant' });

    const renewed = await refresh({ DPoP: await dpopProof(key, { htm: 'POST', htu: tokenUrl }) });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('dpop-nonce')).toBeNull(); // nonces are off by default
    expect(await renewed.json()).toMatchObject({ token_type: 'DPoP', refresh_token: expect.any(String) });
  });

  test('userinfo on the auth origin accepts a bound token with a proof for that origin only', async () => {
    const idp = await start();
    const key = await dpopKey();
    const { access_token: token } = await signInWithDpop(idp, key);
    const userinfo = `${idp.authUrl}/connect/userinfo`;

    const ok = await withDpop(userinfo, token, await dpopProof(key, { htm: 'GET', htu: userinfo, accessToken: token }), {
      headers: { Origin: APP_ORIGIN },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(await ok.json()).toMatchObject({ sub: 'u-alice-7f3a' });

    const issuerHtu = `${idp.accountUrl}/connect/userinfo`;
    const wrongOrigin = await withDpop(userinfo, token, await dpopProof(key, { htm: 'GET', htu: issuerHtu, accessToken: token }));
    expect(wrongOrigin.status).toBe(401);
    expect(wrongOrigin.headers.get('www-authenticate')).toMatch(
      /^DPoP .*error="invalid_dpop_proof", error_description="DPoP proof htu mismatch"/,
    );

    const asBearer = await getWithBearer(userinfo, token);
    expect(asBearer.status).toBe(401);
  });

  test('the demo API: valid proof 200; Bearer, other key, wrong ath/htu/htm, old iat, replay 401', async () => {
    const idp = await start();
    const key = await dpopKey();
    const { access_token: token } = await signInWithDpop(idp, key);
    const api = `${idp.apiUrl}/api/greeting`;
    /** @param {Partial<Parameters<typeof dpopProof>[1]>} claims @param {typeof key} [signer] */
    const proof = (claims = {}, signer = key) => dpopProof(signer, { htm: 'GET', htu: api, accessToken: token, ...claims });

    const valid = await proof();
    const ok = await withDpop(`${api}?x=1`, token, valid, { headers: { Origin: APP_ORIGIN } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ greeting: 'Hello, Alice Liddell!' });
    expect(ok.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate, DPoP-Nonce');

    const replayed = await withDpop(api, token, valid);
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('www-authenticate')).toMatch(
      /^DPoP error="invalid_dpop_proof", error_description="DPoP proof replayed"/,
    );

    const bearer = await getWithBearer(api, token);
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);

    const refusals = {
      'other key': await proof({}, await dpopKey()),
      ath: await proof({ accessToken: `${token}x` }),
      htu: await proof({ htu: `${idp.apiUrl}/api/notes` }),
      'htu origin': await proof({ htu: `${idp.authUrl}/api/greeting` }),
      htm: await proof({ htm: 'POST' }),
      iat: await proof({ iat: Math.floor(Date.now() / 1000) - 120 }),
      'no proof': '',
    };
    for (const [name, bad] of Object.entries(refusals)) {
      const response = await withDpop(api, token, bad);
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toMatch(/^DPoP error="invalid_dpop_proof", .*algs="ES256/);
    }

    // An unbound token may not pretend to be bound.
    const plain = await signIn(idp);
    const { access_token: unbound } = await exchangeCode(idp, plain.callback, plain.verifier);
    const pretending = await withDpop(api, unbound, await proof({ accessToken: unbound }));
    expect(pretending.status).toBe(401);
    expect(pretending.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    expect((await getWithBearer(api, unbound)).status).toBe(200);
  });

  test('nonce mode: token endpoint and API answer use_dpop_nonce with a DPoP-Nonce, the retry succeeds', async () => {
    const idp = await start({ dpopNonce: true });
    const key = await dpopKey();
    const { callback: done, verifier } = await signIn(idp);
    const tokenUrl = `${idp.accountUrl}/connect/token`;
    const params = { grant_type: 'authorization_code', code: String(done.searchParams.get('code')), code_verifier: verifier };
    const exchange = async (/** @type {string | undefined} */ nonce) =>
      tokenRequest(idp, { ...params, redirect_uri: APP }, APP_ORIGIN, {
        DPoP: await dpopProof(key, { htm: 'POST', htu: tokenUrl, nonce }),
      });

    const first = await exchange(undefined);
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ error: 'use_dpop_nonce' });
    expect(first.headers.get('access-control-expose-headers')).toContain('DPoP-Nonce');
    const tokenNonce = first.headers.get('dpop-nonce');
    expect(tokenNonce).toEqual(expect.any(String));
    const retried = await exchange(tokenNonce ?? undefined);
    expect(retried.status).toBe(200);
    const { access_token: token, token_type: type } = /** @type {{ access_token: string, token_type: string }} */ (
      await retried.json()
    );
    expect(type).toBe('DPoP');

    const api = `${idp.apiUrl}/api/greeting`;
    const call = async (/** @type {string | undefined} */ nonce) =>
      withDpop(api, token, await dpopProof(key, { htm: 'GET', htu: api, accessToken: token, nonce }), {
        headers: { Origin: APP_ORIGIN },
      });
    const missing = await call(undefined);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce"/);
    const apiNonce = missing.headers.get('dpop-nonce');
    expect(apiNonce).toEqual(expect.any(String));
    expect(missing.headers.get('access-control-expose-headers')).toContain('DPoP-Nonce');

    const stale = await call('not-a-nonce-we-gave');
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toMatch(/^DPoP error="use_dpop_nonce"/);
    expect(stale.headers.get('dpop-nonce')).toBe(apiNonce);

    const ok = await call(apiNonce ?? undefined);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ greeting: 'Hello, Alice Liddell!' });
  });

  test('without nonce mode the API sends no DPoP-Nonce', async () => {
    const idp = await start();
    const key = await dpopKey();
    const { access_token: token } = await signInWithDpop(idp, key);
    const api = `${idp.apiUrl}/api/greeting`;
    const ok = await withDpop(api, token, await dpopProof(key, { htm: 'GET', htu: api, accessToken: token }));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('dpop-nonce')).toBeNull();
  });
});

// The demo protected API and the CORS policy of all three origins, over real
// HTTP on ephemeral loopback ports. Each test starts and closes its own provider.
import { describe, expect, onTestFinished, test, vi } from 'vitest';

import {
  ALL_SCOPES,
  APP,
  APP_ORIGIN,
  OTHER_ORIGIN,
  exchangeCode,
  getWithBearer,
  signIn,
  start,
  tokenRequest,
} from './test-helpers.js';

describe('demo API and CORS', () => {
  test('the demo API answers 401, 403 and 200 as specified', async () => {
    const idp = await start();
    const api = `${idp.apiUrl}/api/greeting`;

    const missing = await getWithBearer(api, undefined);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);

    const unknown = await getWithBearer(api, 'not-a-real-token');
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);

    const narrow = await signIn(idp, { scope: 'openid profile email' });
    const narrowTokens = await exchangeCode(idp, narrow.callback, narrow.verifier);
    const forbidden = await getWithBearer(api, narrowTokens.access_token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="service.api"');

    const full = await signIn(idp, { username: 'bob', password: 'builder' });
    const fullTokens = await exchangeCode(idp, full.callback, full.verifier);
    const ok = await getWithBearer(api, fullTokens.access_token, { Origin: APP_ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    const body = /** @type {{ servedAt: string }} */ (await ok.json());
    expect(body).toMatchObject({ greeting: 'Hello, Bob Builder!', sub: 'u-bob-2c9e', scope: ALL_SCOPES });
    expect(new Date(body.servedAt).toISOString()).toBe(body.servedAt);

    // A token from a grant revoked by refresh-token reuse stops working at once.
    const renewed = /** @type {{ access_token: string }} */ (
      await (await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: fullTokens.refresh_token })).json()
    );
    await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: fullTokens.refresh_token });
    expect((await getWithBearer(api, renewed.access_token)).status).toBe(401);
  });

  test('an expired access token is refused by the API and userinfo', async () => {
    const idp = await start({ accessTokenTtl: 60 });
    const { callback: done, verifier } = await signIn(idp);
    const { access_token: token } = await exchangeCode(idp, done, verifier);
    const api = `${idp.apiUrl}/api/greeting`;
    expect((await getWithBearer(api, token)).status).toBe(200);

    // Move only the wall clock past the token's lifetime instead of waiting.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const expired = await getWithBearer(api, token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect((await getWithBearer(`${idp.authUrl}/connect/userinfo`, token)).status).toBe(401);
  });

  test('CORS headers only for the app origin', async () => {
    const idp = await start();
    /** @param {string} url @param {string} origin */
    const preflight = (url, origin, headers = 'content-type') =>
      fetch(url, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': url.endsWith('token') ? 'POST' : 'GET',
          'Access-Control-Request-Headers': headers,
        },
      });
    const token = `${idp.accountUrl}/connect/token`;
    const userinfo = `${idp.authUrl}/connect/userinfo`;
    const api = `${idp.apiUrl}/api/greeting`;

    for (const url of [token, userinfo, api]) {
      const allowed = await preflight(url, APP_ORIGIN, 'authorization');
      expect(allowed.status, url).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin'), url).toBe(APP_ORIGIN);
      expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase(), url).toContain('authorization');

      const refused = await preflight(url, OTHER_ORIGIN, 'authorization');
      expect(refused.headers.get('access-control-allow-origin'), url).toBeNull();
    }

    const { callback: done, verifier } = await signIn(idp);
    const foreign = await tokenRequest(
      idp,
      {
        grant_type: 'authorization_code',
        code: String(done.searchParams.get('code')),
        redirect_uri: APP,
        code_verifier: verifier,
      },
      OTHER_ORIGIN,
    );
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.status).toBe(400);

    const { callback: done2, verifier: verifier2 } = await signIn(idp);
    const tokens = await exchangeCode(idp, done2, verifier2);
    for (const url of [userinfo, api]) {
      const response = await getWithBearer(url, tokens.access_token, { Origin: OTHER_ORIGIN });
      expect(response.headers.get('access-control-allow-origin'), url).toBeNull();
    }
    const apiResponse = await getWithBearer(api, 'nope', { Origin: APP_ORIGIN });
    expect(apiResponse.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate, DPoP-Nonce');
  });
});

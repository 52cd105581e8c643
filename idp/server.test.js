// End-to-end tests of the local identity provider over real HTTP on ephemeral
// loopback ports, driven with fetch only. Each test starts and closes its own.
import { describe, expect, test } from 'vitest';

import { escapeHtml } from './pages.js';
import { startIdp } from './server.js';
import {
  ALL_SCOPES,
  APP,
  APP_ORIGIN,
  TestBrowser,
  authorize,
  callback,
  exchangeCode,
  getWithBearer,
  page,
  pkce,
  signIn,
  start,
  submit,
  tokenRequest,
} from './test-helpers.js';

describe('local identity provider', () => {
  test('code + PKCE flow: login, consent, code with iss, token, userinfo on the auth origin', async () => {
    const idp = await start({ accessTokenTtl: 120 });
    expect(idp.accountUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(idp.authUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(idp.issuer).toBe(idp.accountUrl);

    const { callback: done, verifier, state, nonce } = await signIn(idp);
    expect(done.origin + done.pathname).toBe(APP);
    expect(done.searchParams.get('state')).toBe(state);
    expect(done.searchParams.get('iss')).toBe(idp.issuer); // RFC 9207
    expect(done.searchParams.get('code')).toBeTruthy();

    const tokens = await exchangeCode(idp, done, verifier);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 120, scope: ALL_SCOPES });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const idToken = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString());
    expect(idToken).toMatchObject({ iss: idp.issuer, aud: idp.clientId, nonce, sub: 'u-alice-7f3a' });

    const userinfo = await getWithBearer(`${idp.authUrl}/connect/userinfo`, tokens.access_token, { Origin: APP_ORIGIN });
    expect(userinfo.status).toBe(200);
    expect(userinfo.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(await userinfo.json()).toEqual({
      sub: 'u-alice-7f3a',
      name: 'Alice Liddell',
      preferred_username: 'alice',
      email: 'alice@example.test',
    });

    // The code is single-use.
    const again = await tokenRequest(idp, {
      grant_type: 'authorization_code',
      code: String(done.searchParams.get('code')),
      redirect_uri: APP,
      code_verifier: verifier,
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('userinfo only on the auth origin; the auth origin serves nothing else', async () => {
    const idp = await start();
    const { callback: done, verifier } = await signIn(idp);
    const { access_token: token } = await exchangeCode(idp, done, verifier);

    expect((await getWithBearer(`${idp.accountUrl}/connect/userinfo`, token)).status).toBe(404);
    expect((await fetch(`${idp.authUrl}/connect/authorize`)).status).toBe(404);
    expect((await fetch(`${idp.authUrl}/.well-known/openid-configuration`)).status).toBe(404);

    const discovery = await (await fetch(`${idp.accountUrl}/.well-known/openid-configuration`)).json();
    expect(discovery).toMatchObject({
      issuer: idp.issuer,
      authorization_endpoint: `${idp.accountUrl}/connect/authorize`,
      token_endpoint: `${idp.accountUrl}/connect/token`,
      userinfo_endpoint: `${idp.authUrl}/connect/userinfo`,
      jwks_uri: `${idp.accountUrl}/connect/jwks`,
      end_session_endpoint: `${idp.accountUrl}/connect/endsession`,
      revocation_endpoint: `${idp.accountUrl}/connect/revocation`,
      scopes_supported: ['openid', 'profile', 'email', 'service.api'],
      dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'],
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
    });
    expect((await fetch(`${idp.accountUrl}/connect/jwks`)).status).toBe(200);
  });

  test('userinfo returns only the claims of the granted scopes', async () => {
    const idp = await start();
    const { callback: done, verifier } = await signIn(idp, { scope: 'openid email', username: 'bob', password: 'builder' });
    const { access_token: token } = await exchangeCode(idp, done, verifier);
    const userinfo = await getWithBearer(`${idp.authUrl}/connect/userinfo`, token);
    expect(await userinfo.json()).toEqual({ sub: 'u-bob-2c9e', email: 'bob@example.test' });
  });

  test('a wrong password is refused with an error on the login page', async () => {
    const idp = await start();
    const browser = new TestBrowser();
    const login = page((await authorize(idp, browser)).result);
    expect(login.html).toMatch(/<label for="username">Username<\/label>/);
    expect(login.html).toMatch(/<label for="password">Password<\/label>/);
    expect(login.html).toMatch(/<button[^>]*>Sign in<\/button>/);

    const refused = page(await submit(browser, login, '/login', { username: '<b>alice</b>', password: 'wonderland' }));
    expect(refused.html).toContain('Wrong username or password.');
    expect(refused.html).toContain('value="&#60;b&#62;alice&#60;/b&#62;"'); // echoed, escaped
    expect(refused.html).not.toContain('<b>alice</b>');

    const wrong = page(await submit(browser, refused, '/login', { username: 'alice', password: 'builder' }));
    expect(wrong.html).toContain('Wrong username or password.');

    // The same interaction still accepts the right password afterwards.
    const consent = page(await submit(browser, wrong, '/login', { username: 'alice', password: 'wonderland' }));
    expect(consent.html).toMatch(/<button[^>]*>Allow<\/button>/);
    expect(consent.html).toMatch(/<button[^>]*>Cancel<\/button>/);
    expect(consent.html).toContain('service.api');
  });

  test('Cancel at consent sends access_denied back to the app', async () => {
    const idp = await start();
    const browser = new TestBrowser();
    const { result, state } = await authorize(idp, browser);
    const login = page(result);
    const consent = page(await submit(browser, login, '/login', { username: 'alice', password: 'wonderland' }));
    const done = callback(await submit(browser, consent, '/consent', { decision: 'cancel' }));
    expect(Object.fromEntries(done.searchParams)).toMatchObject({ error: 'access_denied', state, iss: idp.issuer });
    expect(done.searchParams.has('code')).toBe(false);

    // Signed in but never consented: a silent request needs consent.
    const silent = callback((await authorize(idp, browser, { prompt: 'none' })).result);
    expect(silent.searchParams.get('error')).toBe('consent_required');
  });

  test('refresh tokens rotate and a used one is refused', async () => {
    const idp = await start();
    const { callback: done, verifier } = await signIn(idp);
    const first = await exchangeCode(idp, done, verifier);

    const renewed = await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const second = /** @type {{ access_token: string, refresh_token: string }} */ (await renewed.json());
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await getWithBearer(`${idp.authUrl}/connect/userinfo`, second.access_token)).status).toBe(200);

    const reused = await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('prompt=none returns a code after consent and login_required without a session', async () => {
    const idp = await start();
    const { browser } = await signIn(idp);

    const { verifier, challenge } = pkce();
    const silent = callback((await authorize(idp, browser, { prompt: 'none', challenge })).result);
    expect(silent.searchParams.get('iss')).toBe(idp.issuer);
    const tokens = await exchangeCode(idp, silent, verifier);
    expect((await getWithBearer(`${idp.authUrl}/connect/userinfo`, tokens.access_token)).status).toBe(200);

    const stranger = callback((await authorize(idp, new TestBrowser(), { prompt: 'none' })).result);
    expect(Object.fromEntries(stranger.searchParams)).toMatchObject({ error: 'login_required', iss: idp.issuer });
  });

  test('end session signs out: back to the app, session and refresh token gone', async () => {
    const idp = await start();
    const { browser, callback: done, verifier } = await signIn(idp);
    const tokens = await exchangeCode(idp, done, verifier);

    const endSession = new URL('/connect/endsession', idp.accountUrl);
    endSession.search = new URLSearchParams({ client_id: idp.clientId, post_logout_redirect_uri: APP, state: 'bye' }).toString();
    const confirm = page(await browser.navigate(endSession, { appOrigin: APP_ORIGIN }));
    expect(confirm.html).toMatch(/<button[^>]*>Sign out<\/button>/);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1] ?? '';
    const back = callback(await submit(browser, confirm, '/confirm', { xsrf, logout: 'yes' }));
    expect(back.href).toBe(`${APP}?state=bye`);

    const silent = callback((await authorize(idp, browser, { prompt: 'none' })).result);
    expect(silent.searchParams.get('error')).toBe('login_required');
    const refresh = await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });

    // Without a session the provider auto-submits a form: its inline script is allowed by hash only.
    const autoSubmit = page(await new TestBrowser().navigate(endSession, { appOrigin: APP_ORIGIN }));
    expect(autoSubmit.html).toContain('<script>');
    expect(autoSubmit.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[^']+'/);
  });

  test('post-logout redirect URIs of their own: a sign-out returns there, and only there', async () => {
    const landing = `${APP}signed-out`;
    const idp = await start({ postLogoutRedirectUris: [landing] });
    const { browser } = await signIn(idp);
    /** @param {string} uri */
    const endSession = (uri) => {
      const url = new URL('/connect/endsession', idp.accountUrl);
      url.search = new URLSearchParams({ client_id: idp.clientId, post_logout_redirect_uri: uri, state: 'bye' }).toString();
      return url;
    };
    // The redirect URI is no post-logout redirect URI any more.
    const refused = page(await browser.navigate(endSession(APP), { appOrigin: APP_ORIGIN }));
    expect(refused.status).toBe(400);
    const confirm = page(await browser.navigate(endSession(landing), { appOrigin: APP_ORIGIN }));
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1] ?? '';
    const back = callback(await submit(browser, confirm, '/confirm', { xsrf, logout: 'yes' }));
    expect(back.href).toBe(`${landing}?state=bye`);
  });

  test('end session takes GET only, like a default oidc-provider: a POST is a 404 and signs nobody out', async () => {
    const idp = await start();
    const { browser, callback: done, verifier } = await signIn(idp);
    const tokens = await exchangeCode(idp, done, verifier);
    const endSession = new URL('/connect/endsession', idp.accountUrl);
    const form = { id_token_hint: tokens.id_token, client_id: idp.clientId, post_logout_redirect_uri: APP, state: 'bye' };
    const posted = await browser.navigate(endSession, { appOrigin: APP_ORIGIN, method: 'POST', form });
    expect(posted).toMatchObject({ status: 404 });
    // Still signed in there: a silent sign-in gets a code.
    expect(callback((await authorize(idp, browser, { prompt: 'none' })).result).searchParams.get('code')).toBeTruthy();

    // The same request as a GET returns to the app with its state.
    endSession.search = new URLSearchParams(form).toString();
    const confirm = page(await browser.navigate(endSession, { appOrigin: APP_ORIGIN }));
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1] ?? '';
    expect(callback(await submit(browser, confirm, '/confirm', { xsrf, logout: 'yes' })).href).toBe(`${APP}?state=bye`);
  });

  test('PKCE is required', async () => {
    const idp = await start();
    const done = callback((await authorize(idp, new TestBrowser(), { challenge: null })).result);
    expect(done.searchParams.get('error')).toBe('invalid_request');
  });

  test('pages carry a CSP, load nothing external and escape what they show', async () => {
    const idp = await start();
    const browser = new TestBrowser();
    const login = page((await authorize(idp, browser)).result);
    const csp = login.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`form-action 'self' ${APP_ORIGIN}`);
    expect(login.headers.get('cache-control')).toBe('no-store');
    expect(login.html).not.toMatch(/https?:\/\/|@import|<script/i);

    // A request the provider cannot redirect renders our error page.
    const bad = await fetch(
      `${idp.accountUrl}/connect/authorize?client_id=demo-spa&response_type=code&scope=openid&redirect_uri=${encodeURIComponent('http://evil.test/')}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await bad.text();
    expect(html).toContain('Sign-in failed');
    expect(html).not.toMatch(/https?:\/\/|@import|<script/i);

    expect((await fetch(`${idp.accountUrl}/interaction/unknown`)).status).toBe(400);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });

  test('close() frees the ports', async () => {
    const idp = await startIdp({ quiet: true });
    await idp.close();
    await expect(fetch(idp.accountUrl)).rejects.toThrow();
  });
});

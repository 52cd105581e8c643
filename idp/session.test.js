// Ending things at the provider: token revocation (RFC 7009), RP-Initiated
// Logout and prompt=login, over real HTTP on ephemeral loopback ports.
import { describe, expect, test } from 'vitest';

import {
  APP,
  APP_ORIGIN,
  OTHER_ORIGIN,
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

/**
 * @param {{ accountUrl: string, clientId: string }} idp
 * @param {string} token
 * @param {string} [origin]
 */
function revoke(idp, token, origin = APP_ORIGIN) {
  return fetch(`${idp.accountUrl}/connect/revocation`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin },
    body: new URLSearchParams({ client_id: idp.clientId, token, token_type_hint: 'refresh_token' }),
  });
}

describe('revocation, logout and prompt=login', () => {
  test('revoking the refresh token makes it and the grant unusable; CORS for the app only', async () => {
    const idp = await start();
    const { callback: done, verifier } = await signIn(idp);
    const tokens = await exchangeCode(idp, done, verifier);

    const preflight = await fetch(`${idp.accountUrl}/connect/revocation`, {
      method: 'OPTIONS',
      headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const foreignPreflight = await fetch(`${idp.accountUrl}/connect/revocation`, {
      method: 'OPTIONS',
      headers: { Origin: OTHER_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    });
    expect(foreignPreflight.headers.get('access-control-allow-origin')).toBeNull();

    const foreign = await revoke(idp, tokens.refresh_token, OTHER_ORIGIN);
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const revoked = await revoke(idp, tokens.refresh_token);
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);

    const refresh = await tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    // Revoking the refresh token ends the grant, so its access token goes with it.
    expect((await getWithBearer(`${idp.authUrl}/connect/userinfo`, tokens.access_token)).status).toBe(401);
    expect((await getWithBearer(`${idp.apiUrl}/api/greeting`, tokens.access_token)).status).toBe(401);

    // RFC 7009 §2.2: an unknown or already revoked token is still a 200.
    expect((await revoke(idp, tokens.refresh_token)).status).toBe(200);
  });

  test('end session with id_token_hint: our confirmation page, back to the app with state, login form next time', async () => {
    const idp = await start();
    const { browser, callback: done, verifier } = await signIn(idp);
    const tokens = await exchangeCode(idp, done, verifier);

    const endSession = new URL('/connect/endsession', idp.accountUrl);
    endSession.search = new URLSearchParams({
      id_token_hint: tokens.id_token,
      client_id: idp.clientId,
      post_logout_redirect_uri: APP,
      state: 'st-42',
    }).toString();
    const confirm = page(await browser.navigate(endSession, { appOrigin: APP_ORIGIN }));
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('<h1>Sign out?</h1>');
    expect(confirm.html).toContain('you came from Demo SPA');
    expect(confirm.html).toContain('Signed in as Alice Liddell');
    expect(confirm.html).toMatch(
      /<button class="primary" type="submit" form="op.logoutForm" name="logout" value="yes"[^>]*>Sign out<\/button>/,
    );
    expect(confirm.html).not.toMatch(/<script|https?:\/\/(?!localhost)/i);
    expect(confirm.headers.get('content-security-policy')).toContain("default-src 'none'");

    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1] ?? '';
    const back = callback(await submit(browser, confirm, '/confirm', { xsrf, logout: 'yes' }));
    expect(back.href).toBe(`${APP}?state=st-42`);

    const again = page((await authorize(idp, browser)).result);
    expect(again.html).toContain('<h1>Sign in</h1>');
  });

  test('the end-session request answers with a redirect to the prompt, whose URL carries none of the request', async () => {
    const idp = await start();
    const { browser } = await signIn(idp);
    const endSession = new URL('/connect/endsession', idp.accountUrl);
    endSession.search = new URLSearchParams({ client_id: idp.clientId, post_logout_redirect_uri: APP, state: 'st-7' }).toString();

    // A GET, and a redirect: the end-session request never becomes a page of its own, so Back cannot send it again.
    const answer = await browser.request(endSession);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('cache-control')).toContain('no-store');
    const prompt = new URL(answer.headers.get('location') ?? '', endSession);
    expect(prompt.origin).toBe(idp.accountUrl);
    expect(prompt.pathname).toMatch(/^\/logout\/[\w-]{22}$/);
    expect(prompt.search).toBe('');

    const confirm = page(await browser.navigate(prompt, { appOrigin: APP_ORIGIN }));
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('<h1>Sign out?</h1>');
    expect(confirm.html).toContain('you came from Demo SPA');
    expect(confirm.headers.get('cache-control')).toBe('no-store');
    expect(confirm.headers.get('content-security-policy')).toContain("default-src 'none'");
    // The page is for reading: its form goes to the provider's confirm step only.
    expect((await browser.request(prompt, { method: 'POST', form: { logout: 'yes' } })).status).toBe(405);

    // Answered ("Stay signed in" here): back to the app, and the page no longer offers a form.
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1] ?? '';
    expect(callback(await submit(browser, confirm, '/confirm', { xsrf })).href).toBe(`${APP}?state=st-7`);
    const answered = page(await browser.navigate(prompt, { appOrigin: APP_ORIGIN }));
    expect(answered.status).toBe(410);
    expect(answered.html).toContain('already answered');
    expect(answered.html).not.toContain('<form');
    expect(page(await browser.navigate(new URL('/logout/unknown', idp.accountUrl), { appOrigin: APP_ORIGIN })).status).toBe(410);

    // Stayed signed in at the provider, which withdrew only this app's grant: consent, not a login, is asked for.
    expect(callback((await authorize(idp, browser, { prompt: 'none' })).result).searchParams.get('error')).toBe(
      'consent_required',
    );
  });

  test('logoutPromptAtEndSession shows the prompt as the answer to the end-session request, as a stock oidc-provider does', async () => {
    const idp = await start({ logoutPromptAtEndSession: true });
    const { browser } = await signIn(idp);
    const endSession = new URL('/connect/endsession', idp.accountUrl);
    endSession.search = new URLSearchParams({ client_id: idp.clientId, post_logout_redirect_uri: APP, state: 'st-8' }).toString();
    const confirm = page(await browser.navigate(endSession, { appOrigin: APP_ORIGIN }));
    expect(confirm.url.href).toBe(endSession.href);
    expect(confirm.html).toContain('<h1>Sign out?</h1>');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.html)?.[1] ?? '';
    expect(callback(await submit(browser, confirm, '/confirm', { xsrf, logout: 'yes' })).href).toBe(`${APP}?state=st-8`);
  });

  test('prompt=login asks alice for her password despite a live session, and bob can sign in instead', async () => {
    const idp = await start();
    const { browser } = await signIn(idp);

    // Without prompt=login the live session and grant give a code at once.
    expect(callback((await authorize(idp, browser)).result).searchParams.get('code')).toBeTruthy();

    const asAlice = page((await authorize(idp, browser, { prompt: 'login' })).result);
    expect(asAlice.html).toContain('<h1>Sign in</h1>');
    const alice = callback(await submit(browser, asAlice, '/login', { username: 'alice', password: 'wonderland' }));
    expect(alice.searchParams.get('code')).toBeTruthy(); // alice's grant still holds: no consent again

    const { verifier, challenge } = pkce();
    const { result, state } = await authorize(idp, browser, { prompt: 'login', challenge });
    const asBob = page(result);
    expect(asBob.html).toContain('<h1>Sign in</h1>');
    // Another account than the session's: oidc-provider first ends alice's session with a
    // self-submitting form (its inline script allowed by hash), then resumes as bob.
    const switching = page(await submit(browser, asBob, '/login', { username: 'bob', password: 'builder' }));
    expect(switching.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[^']+'/);
    const hidden = Object.fromEntries(
      [...switching.html.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/>/g)].map(([, name, value]) => [
        name,
        value,
      ]),
    );
    expect(hidden).toMatchObject({ logout: 'yes' });
    const consent = page(await submit(browser, switching, '/connect/endsession/confirm', hidden));
    expect(consent.html).toContain('Signed in as Bob Builder');
    const bob = callback(await submit(browser, consent, '/consent', { decision: 'allow' }));
    expect(bob.searchParams.get('state')).toBe(state);
    const { id_token: idToken } = await exchangeCode(idp, bob, verifier);
    expect(JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString())).toMatchObject({ sub: 'u-bob-2c9e' });
  });
});

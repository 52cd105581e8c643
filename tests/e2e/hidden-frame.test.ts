// Issue 30: a provider that gives the app no refresh token. The session renews before each expiry with
// a prompt=none authorization in a hidden frame, unnoticed; where the provider forbids framing, the
// person is told before the end and Stay signed in comes back to the same page with the draft kept;
// and a lone reload the browser did not keep (keepSessionMs 0, as a browser without extended-lifetime
// workers) restores in the frame, with no top-level redirect.
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../support/browser';
import { tokenRequests } from '../support/flows';
import { readClaims, routeOf, signIn, useEnv, type Session } from './helpers';

/** Seconds an access token lives. */
const LIFETIME_S = 8;

/** Top-level page loads (not a frame's): a redirect, a reload, a navigation. */
const topLevel = (entries: RecordedRequest[]) =>
  entries.filter((e) => e.isNavigation && e.headers['sec-fetch-dest'] !== 'iframe');
const framed = (entries: RecordedRequest[]) => entries.filter((e) => e.isNavigation && e.headers['sec-fetch-dest'] === 'iframe');

/** The page calls the demo API again ("Call again" on #/api), and the API takes the token of the moment. */
async function callApi({ page, log }: Session) {
  const answered = () => log.matching('/api/greeting', 'GET').filter((e) => e.status === 200).length;
  const before = answered();
  await page.getByRole('button', { name: 'Call again' }).click();
  await expect.poll(answered).toBe(before + 1);
  await page.getByTestId('api-result').waitFor();
}

describe('no refresh token, framing allowed', () => {
  // The demo API takes the sign-in token (apiOrigins): a token of its own (apis, RFC 8707) is obtained
  // with a refresh token, which this provider does not give.
  const env = useEnv({ accessTokenTtl: LIFETIME_S, refreshTokens: false, extraConfig: { apis: {} } });

  it('keeps the claims and working API calls for four lifetimes, renewing in a hidden frame: no navigation, no alert', async () => {
    const session = await env.open();
    const { page, log } = session;
    await signIn(session, env.stack.app.url, '#/api');
    await page.getByTestId('api-result').waitFor();
    await log.settle();
    const codesBefore = tokenRequests(log, 'authorization_code').filter((e) => e.status === 200).length;
    const pageLoads = topLevel(log.entries).length;
    // Four lifetimes: the frame renews at half a lifetime, so eight renewals. After each, an API call
    // with the token of the moment, and no alert.
    const codes = () => tokenRequests(log, 'authorization_code').filter((e) => e.status === 200).length;
    for (let renewal = 1; renewal <= 8; renewal++) {
      await expect.poll(codes, { timeout: LIFETIME_S * 1000 }).toBeGreaterThanOrEqual(codesBefore + renewal);
      await callApi(session);
      expect(await page.getByRole('alert').filter({ visible: true }).count()).toBe(0);
    }
    await log.settle();
    // One frame, and one code exchange, per lifetime at least; never a refresh token.
    expect(tokenRequests(log, 'refresh_token')).toHaveLength(0);
    expect(framed(log.entries).length).toBeGreaterThanOrEqual(8);
    expect(framed(log.entries).every((e) => new URL(e.url).searchParams.get('prompt') !== 'login')).toBe(true);
    expect(topLevel(log.entries)).toHaveLength(pageLoads);
    expect(routeOf(page)).toBe('#/api');
    // Every API call carried a token the API took.
    expect(log.matching('/api/greeting').every((e) => e.status === undefined || e.status === 200)).toBe(true);
    // The frames are gone: nothing of them stays in the page.
    await expect.poll(() => page.locator('iframe').count()).toBe(0);
  });

  it('a lone reload the browser did not keep (keepSessionMs 0) restores in the frame: no top-level redirect', async () => {
    const reloadEnv = env.stack.config;
    env.stack.app.setConfig({ ...reloadEnv, keepSessionMs: 0 });
    const session = await env.open();
    const { page, log } = session;
    await signIn(session, env.stack.app.url);
    const claims = await readClaims(page);
    await log.settle();
    log.clear();
    await page.reload();
    expect(await readClaims(page)).toEqual(claims);
    await log.settle();
    // The reload itself, and no other page load; the provider was asked in a frame.
    expect(topLevel(log.entries).map((e) => e.url.split('#')[0])).toEqual([env.stack.app.url]);
    expect(framed(log.entries).some((e) => new URL(e.url).searchParams.get('prompt') === 'none')).toBe(true);
    env.stack.app.setConfig(reloadEnv);
  });
});

describe('no refresh token, framing forbidden', () => {
  const env = useEnv({ accessTokenTtl: LIFETIME_S, refreshTokens: false, allowFraming: false });

  it('warns before expiry; Stay signed in comes back to the same page, the draft kept, signed in', async () => {
    const session = await env.open();
    const { page } = session;
    await signIn(session, env.stack.app.url, '#/notes');
    await page.getByRole('button', { name: 'Add note' }).waitFor();
    await page.getByLabel('Title').fill('Plan');
    await page.getByLabel('Text').fill('Tea at four');
    const warning = page.getByRole('alert').filter({ hasText: 'Your session ends in less than a minute.' });
    await warning.waitFor({ timeout: LIFETIME_S * 1000 });
    // Before expiry: still signed in, the form still there.
    expect(await page.getByRole('button', { name: 'Add note' }).count()).toBe(1);
    expect(await page.getByRole('alert').filter({ hasText: 'expired' }).count()).toBe(0);
    await warning.getByRole('button', { name: 'Stay signed in' }).click();
    // At the provider its own session lasts: straight back, signed in, on the same page, the draft in the form.
    await page.waitForURL((url) => url.hash === '#/notes' && !url.search.includes('code='));
    await page.getByRole('button', { name: 'Add note' }).waitFor();
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Plan');
    expect(await page.getByLabel('Text').inputValue()).toBe('Tea at four');
    expect(await warning.count()).toBe(0);
  });
});

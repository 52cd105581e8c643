// Issue 3: a session that survives reloads, ends in every tab at once, and whose token stays home.
import { describe, expect, it } from 'vitest';
import { pageState } from '../support/browser';
import { tokenResponses } from '../support/flows';
import { readClaims, routeOf, signIn, useEnv } from './helpers';

describe('session', () => {
  const env = useEnv();

  it('the #/api page shows the API answer and the token only goes to the auth and API origins', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { idp } = env.stack;
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/api');
    const result = page.getByTestId('api-result');
    await result.waitFor();
    await log.settle();

    const apiCall = log.matching(idp.apiUrl + '/api/greeting', 'GET').find((e) => e.status === 200);
    expect(apiCall, 'a successful API call').toBeTruthy();
    const answer = JSON.parse(apiCall?.body ?? '{}') as Record<string, unknown>;
    const shown = (await result.textContent()) ?? '';
    for (const value of Object.values(answer).filter((v) => typeof v === 'string')) expect(shown).toContain(value);

    const tokens = tokenResponses(log).map((t) => t.access_token as string);
    expect(tokens.length).toBeGreaterThan(0);
    expect(apiCall?.headers.authorization).toBe(`Bearer ${tokens.at(-1)}`);
    const allowed = [new URL(idp.authUrl).origin, new URL(idp.apiUrl).origin];
    const carriers = log.entries.filter(
      (e) => e.headers.authorization || tokens.some((t) => e.url.includes(t) || e.postData?.includes(t)),
    );
    expect(carriers.length).toBeGreaterThan(0);
    for (const e of carriers) expect(allowed, `token sent to ${e.url}`).toContain(new URL(e.url).origin);
  });

  it('a reload keeps the person signed in on the same route, with no token stored', async () => {
    const session = await env.open();
    const { page, log } = session;
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/api');
    await page.getByTestId('api-result').waitFor();
    const before = log.entries.length;

    await page.reload();
    await page.getByTestId('api-result').waitFor();
    expect(routeOf(page)).toBe('#/api');
    // The app's shared worker kept the session across the reload, not anything in the page's storage:
    // no navigation to the provider, no request to the identity service at all.
    const { idp } = env.stack;
    const provider = log.entries.slice(before).filter((e) => e.url.startsWith(idp.accountUrl) || e.url.startsWith(idp.authUrl));
    expect(provider.map((e) => `${e.method} ${new URL(e.url).pathname}`)).toEqual([]);

    await log.settle();
    const dump = JSON.stringify(await pageState(page));
    for (const t of tokenResponses(log)) {
      for (const key of ['access_token', 'refresh_token', 'id_token']) {
        if (typeof t[key] === 'string') expect(dump.includes(t[key] as string), `${key} stored: ${dump}`).toBe(false);
      }
    }
  });

  it('signing out in one tab signs out the other tab', async () => {
    const session = await env.open();
    const { context, page } = session;
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/profile');
    const claims = await readClaims(page);

    const other = await context.newPage();
    await other.goto(env.stack.app.url + '#/profile');
    expect(await readClaims(other)).toEqual(claims);

    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // The other tab drops what it showed without being touched.
    await expect.poll(() => other.locator('[data-claim]').count()).toBe(0);
    expect(await other.getByText(claims.email).count()).toBe(0);
  });
});

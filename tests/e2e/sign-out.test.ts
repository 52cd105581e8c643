// Sign-out from every state that knew a person, and from every tab: the provider's session ends and no
// token any tab was given works afterwards.
import { describe, expect, it } from 'vitest';
import { tokenResponses } from '../support/flows';
import { getWith, refreshGrant } from '../support/node-client';
import { joined, readClaims, signIn, useEnv } from './helpers';

describe('sign-out from every state and every tab', () => {
  const env = useEnv({
    extraConfig: (idp) => ({
      endSessionUrl: idp.accountUrl + '/connect/endsession',
      revocationUrl: idp.accountUrl + '/connect/revocation',
    }),
  });

  it('after Sign out in one of three tabs, no token the browser was given works at the provider', async () => {
    const first = await env.open();
    const { context, log } = first;
    const { app, idp } = env.stack;
    await signIn(first, app.url);
    await readClaims(first.page);
    await joined(first.page);
    // Two more tabs of the same browser: they adopt the first tab's session, tokens and all.
    const tabs = [first.page, await context.newPage(), await context.newPage()];
    for (const tab of tabs.slice(1)) {
      await tab.goto(app.url + '#/profile');
      await readClaims(tab);
    }
    await log.settle();
    const issued = tokenResponses(log);
    expect(issued).toHaveLength(1);

    await tabs[1].getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    for (const tab of [tabs[0], tabs[2]])
      await tab.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // Revocation is best effort and not waited for: wait for its effect at the provider.
    for (const tokens of issued) {
      await expect
        .poll(
          async () => (await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, String(tokens.refresh_token))).status,
        )
        .toBe(400);
      const userinfo = await getWith(idp.authUrl + '/connect/userinfo', { authorization: `Bearer ${tokens.access_token}` });
      expect(userinfo.status, 'an access token still worked').toBe(401);
    }
  });
});

describe('sign-out after the session expired', () => {
  const env = useEnv({
    accessTokenTtl: 4,
    extraConfig: (idp) => ({
      endSessionUrl: idp.accountUrl + '/connect/endsession',
      revocationUrl: idp.accountUrl + '/connect/revocation',
    }),
  });

  it('an expired session still offers Sign out, which ends the provider session with the ended session ID token', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url);
    await readClaims(page);
    await log.settle();
    const tokens = tokenResponses(log).at(-1)!;
    // The refresh token stops working (revoked elsewhere): the next renewal fails and the session expires.
    const revoked = await fetch(idp.accountUrl + '/connect/revocation', {
      method: 'POST',
      body: new URLSearchParams({ token: String(tokens.refresh_token), client_id: idp.clientId }),
    });
    expect(revoked.status).toBe(200);
    const signOut = page.getByRole('banner').getByRole('button', { name: 'Sign out' });
    // Renewal comes shortly before the 4-second token expires, and is refused.
    await page.getByRole('alert').filter({ hasText: 'Your session has expired.' }).waitFor();
    expect(await page.locator('[data-claim]').count()).toBe(0);

    await signOut.click();
    await page.waitForURL((url) => url.href.startsWith(idp.accountUrl + '/connect/endsession'));
    const [post] = log.matching(idp.accountUrl + '/connect/endsession', 'POST');
    expect(new URLSearchParams(post.postData ?? '').get('id_token_hint')).toBe(tokens.id_token);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => url.href.startsWith(app.url));
    await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});

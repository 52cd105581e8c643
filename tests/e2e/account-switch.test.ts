// Issue 9: signing out lets the person switch accounts, ends the provider's session when the app
// knows where, and leaves no refresh token that still works.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { answerSignOut, authorizeRequests, endSessionRequests, prompts, signInAs, tokenResponses } from '../support/flows';
import { getWith, refreshGrant } from '../support/node-client';
import { readClaims, signIn, useEnv, type Session } from './helpers';

const BOB = { username: 'bob', password: 'builder' };

const signOutButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: 'Sign out' });
const appSignIn = (page: Page) => page.getByRole('button', { name: 'Sign in', exact: true });

/** Signs in as alice and returns the tokens the provider issued (read from the network, never from the page). */
async function aliceWithTokens(session: Session, appUrl: string): Promise<Record<string, unknown>> {
  await signIn(session, appUrl);
  expect((await readClaims(session.page)).preferred_username).toBe('alice');
  await session.log.settle();
  const tokens = tokenResponses(session.log).at(-1);
  expect(tokens?.refresh_token, 'the token response was captured').toEqual(expect.any(String));
  return tokens!;
}

describe('account switch, provider session kept (no end-session URL configured)', () => {
  // The app's worker forgets the session with its last page: a reload meets the provider (a silent
  // restore), as any reload does once the worker has let the session go (keepSessionMs).
  const env = useEnv({ extraConfig: { keepSessionMs: 0 } });

  it('after Sign out, Sign in shows the login form although the provider remembers alice; bob signs in', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app } = env.stack;
    await signIn(session, app.url);
    expect((await readClaims(page)).preferred_username).toBe('alice');
    expect(prompts(log)).toEqual(['']);

    await signOutButton(page).click();
    await appSignIn(page).click();
    // Without prompt=login the provider's cookie would sign alice in again at once.
    await page.getByLabel('Username').waitFor();
    expect(prompts(log)).toEqual(['', 'login']);
    await signInAs(page, BOB.username, BOB.password, app.url);
    const claims = await readClaims(page);
    expect(claims.preferred_username).toBe('bob');
    expect(claims.name).toBe('Bob Builder');

    // The mark is spent: a reload restores silently, bob again, and asks for no login.
    await page.reload();
    expect((await readClaims(page)).preferred_username).toBe('bob');
    expect(prompts(log)).toEqual(['', 'login', 'none']);
  });

  it('without a sign-out, neither a reload nor the next sign-in sends prompt=login', async () => {
    const session = await env.open();
    const { context, page, log } = session;
    const { app } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    await page.reload();
    await readClaims(page);
    expect(prompts(log)).toEqual(['', 'none']);

    // The provider forgets alice (its cookies gone): the next reload's silent restore is refused,
    // and the sign-in after it is an ordinary one.
    await context.clearCookies();
    await page.reload();
    await appSignIn(page).click();
    await page.getByLabel('Username').waitFor();
    expect(prompts(log)).toEqual(['', 'none', 'none', '']);
  });

  it('without revocationUrl the old refresh token still works after Sign out (the control for the revocation test)', async () => {
    const session = await env.open();
    const { idp } = env.stack;
    const tokens = await aliceWithTokens(session, env.stack.app.url);
    await signOutButton(session.page).click();
    await appSignIn(session.page).waitFor();
    expect(session.log.matching('/connect/revocation')).toEqual([]);
    const answer = await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, tokens.refresh_token as string);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });
});

describe('account switch with end session and revocation configured', () => {
  const env = useEnv({
    extraConfig: (idp) => ({
      endSessionUrl: idp.accountUrl + '/connect/endsession',
      revocationUrl: idp.accountUrl + '/connect/revocation',
    }),
  });

  it('Sign out ends the provider session by a GET that carries no ID token; Back replays nothing', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    const tokens = await aliceWithTokens(session, app.url);

    await signOutButton(page).click();
    await answerSignOut(page, 'Sign out', app.url);
    await appSignIn(page).waitFor();
    const ends = endSessionRequests(log);
    expect(ends.map((entry) => entry.method)).toEqual(['GET']);
    const fields = new URL(ends[0].url).searchParams;
    expect(fields.has('id_token_hint')).toBe(false);
    expect(fields.get('client_id')).toBe(idp.clientId);
    expect(fields.get('post_logout_redirect_uri')).toBe(app.url);
    const state = fields.get('state');
    expect(state).toMatch(/^[\w-]{16,}$/);
    const back = log.entries.filter((e) => e.isNavigation && e.url.startsWith(app.url)).at(-1);
    expect(new URL(back!.url).searchParams.get('state'), 'the provider came back with our state').toBe(state);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('');

    // Back three times: no end-session request is sent again, no claims show, and no history entry
    // (URL) carries the ID token.
    const endSessions = endSessionRequests(log).length;
    for (let i = 0; i < 3; i++) {
      const from = page.url();
      await page.goBack();
      await page.waitForURL((url) => url.href !== from);
      if (page.url().startsWith(app.url)) await appSignIn(page).or(page.getByRole('alert')).first().waitFor();
      expect(await page.locator('[data-claim]').count()).toBe(0);
    }
    expect(endSessionRequests(log)).toHaveLength(endSessions);
    const cdp = await page.context().newCDPSession(page);
    const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
    expect(entries.map((entry) => entry.url).join(' ')).not.toContain(String(tokens.id_token));
    expect(entries.some((entry) => entry.url.includes('id_token_hint'))).toBe(false);
    expect(log.entries.filter((e) => e.url.includes(String(tokens.id_token)))).toEqual([]);

    // Signed out for good: a reload restores nothing, and Sign in asks for a password again.
    await page.goto(app.url);
    const before = authorizeRequests(log).length;
    await page.reload();
    await appSignIn(page).click();
    await page.getByLabel('Username').waitFor();
    expect(prompts(log).slice(before)).toEqual(['login']);
  });

  it('Sign out revokes the refresh and the access token: the provider refuses both afterwards, even when the person stays signed in there', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    const tokens = await aliceWithTokens(session, app.url);

    await signOutButton(page).click();
    await answerSignOut(page, 'Stay signed in', app.url);
    await appSignIn(page).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    const revoked = log
      .matching(idp.accountUrl + '/connect/revocation', 'POST')
      .map((entry) => new URLSearchParams(entry.postData ?? ''))
      .map((form) => [form.get('token_type_hint'), form.get('token')]);
    expect(revoked).toEqual(
      expect.arrayContaining([
        ['refresh_token', tokens.refresh_token],
        ['access_token', tokens.access_token],
      ]),
    );
    const answer = await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, tokens.refresh_token as string);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    const userinfo = await getWith(idp.authUrl + '/connect/userinfo', { authorization: `Bearer ${tokens.access_token}` });
    expect(userinfo.status).toBe(401);

    // The provider still knows alice, yet the next sign-in lets the person choose.
    await appSignIn(page).click();
    await page.getByLabel('Username').waitFor();
    expect(prompts(log).at(-1)).toBe('login');
  });

  it('a forged sign-out return (?state=whatever) signs out here with a notice, restores nothing and sends nothing', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url);
    expect((await readClaims(page)).preferred_username).toBe('alice');
    const authorizations = authorizeRequests(log).length;

    await page.goto(app.url + '?state=whatever#/profile');
    await page.getByRole('alert').filter({ hasText: 'You are signed out here.' }).waitFor();
    expect(await page.locator('[data-claim]').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('');
    expect(authorizeRequests(log)).toHaveLength(authorizations);

    const stranger = await env.open();
    await stranger.page.goto(app.url + '?state=whatever');
    await stranger.page.getByRole('alert').filter({ hasText: 'You are signed out here.' }).waitFor();
    expect(new URL(stranger.page.url()).search).toBe('');

    for (const { log: l } of [session, stranger]) {
      expect(endSessionRequests(l)).toEqual([]);
      expect(l.matching(idp.accountUrl + '/connect/revocation')).toEqual([]);
    }
    expect(stranger.log.matching('/connect/token')).toEqual([]);
    expect(log.matching('/connect/token', 'POST')).toHaveLength(1); // the sign-in, no restore
  });
});

// Issue 9 edges: a refused silent restore is quiet, callback values are bounded before any token
// request, and claims are shown as plain text.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { authorizeRequests, callbacks, consent, login, prompts, tokenRequests } from '../support/flows';
import { readClaims, signIn, useEnv, type Session } from './helpers';

/** A test-only account whose name looks like markup and hides a direction override and a zero-width space. */
const ANN = {
  sub: 'u-ann-e2e-5d1b',
  username: 'ann',
  password: 'angle-brackets',
  name: 'Ann \u202e<ann@example.test>\u200b <img src=x onerror=alert(1)>',
  email: 'ann@example.test',
};
/** What people must see: the same characters as text, the invisible ones gone. */
const ANN_SHOWN = 'Ann <ann@example.test> <img src=x onerror=alert(1)>';

const appSignIn = (page: Page) => page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true });

/** Reloads the signed-in page whose provider session is gone and checks the app settles signed out, quietly. */
async function expectQuietSignedOut(session: Session, appUrl: string): Promise<void> {
  const { page, log } = session;
  const before = authorizeRequests(log).length;
  await page.reload();
  await appSignIn(page).waitFor();
  expect(await page.getByRole('alert').count()).toBe(0);
  expect(prompts(log).slice(before)).toEqual(['none']);
  const refused = callbacks(log, appUrl).at(-1);
  expect(new URL(refused!.url).searchParams.get('error')).toBe('login_required');
  expect(tokenRequests(log, 'authorization_code')).toHaveLength(1);

  // The hint went with it: the next reload does not try again.
  await page.reload();
  await appSignIn(page).waitFor();
  expect(authorizeRequests(log).length).toBe(before + 1);
}

describe('edges', () => {
  // The app's worker forgets the session with its last page: a reload meets the provider (a silent
  // restore), as any reload does once the worker has let the session go (keepSessionMs).
  const env = useEnv({ extraUsers: [ANN], extraConfig: { keepSessionMs: 0 } });

  it('after the provider forgot the person (cookies cleared), a reload settles signed out with Sign in and no alert', async () => {
    const session = await env.open();
    await signIn(session, env.stack.app.url);
    await readClaims(session.page);
    await session.context.clearCookies();
    await expectQuietSignedOut(session, env.stack.app.url);
  });

  it('after a sign-out at the provider itself (another tab), a reload settles signed out with Sign in and no alert', async () => {
    const session = await env.open();
    const { idp } = env.stack;
    await signIn(session, env.stack.app.url);
    await readClaims(session.page);

    const provider = await session.context.newPage();
    await provider.goto(idp.accountUrl + '/connect/endsession');
    await provider.getByRole('button', { name: 'Sign out', exact: true }).click();
    await provider.getByRole('heading', { name: 'Signed out' }).waitFor();
    await provider.close();
    await expectQuietSignedOut(session, env.stack.app.url);
  });

  it('a 64 KB code with the valid pending state is refused with the invalid-response alert and no token request', async () => {
    const { page, log } = await env.open();
    const { app, idp } = env.stack;
    await page.goto(app.url);
    await appSignIn(page).click();
    await page.getByLabel('Username').waitFor();
    const state = new URL(authorizeRequests(log)[0].url).searchParams.get('state');
    expect(state).toBeTruthy();

    const callback = new URL(app.url);
    callback.search = new URLSearchParams({ code: 'A'.repeat(64 * 1024), state: state!, iss: idp.issuer }).toString();
    await page.goto(callback.href);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('could not be accepted');
    await log.settle();
    expect(tokenRequests(log)).toEqual([]);
    expect(new URL(page.url()).search).toBe('');
  });

  it('a name with markup and invisible characters is shown literally as text, the invisible ones removed', async () => {
    const session = await env.open();
    const { page } = session;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(env.stack.app.url);
    await appSignIn(page).click();
    await login(page, ANN.username, ANN.password);
    await consent(page, 'Allow');

    const claims = await readClaims(page);
    expect(claims.name).toBe(ANN_SHOWN);
    expect(claims.preferred_username).toBe('ann');
    const nameCell = page.locator('[data-claim="name"]');
    expect(await nameCell.locator('*').count(), 'no element was made from the name').toBe(0);
    expect(await nameCell.innerHTML()).toContain('&lt;ann@example.test&gt;');

    await page.getByRole('link', { name: 'Sign-in demo' }).click();
    const greeting = page.getByRole('heading', { level: 1 });
    await greeting.filter({ hasText: 'Hello' }).waitFor();
    expect(await greeting.textContent()).toBe(`Hello, ${ANN_SHOWN}`);

    const text = await page.locator('body').textContent();
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });
});

// Idle sign-out in two tabs of one session (Chromium, the real local provider, config.json's
// idleTimeoutMs 6 s and idleWarnMs 3 s): the warning dialog appears in both in time, Stay signed in
// (or Escape) keeps both, left alone both sign out with a notice saying why, the refresh token is
// revoked once and no longer works at the provider, and the next sign-in asks for the person again.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { prompts, tokenResponses } from '../support/flows';
import { refreshGrant } from '../support/node-client';
import { joined, readClaims, signIn, useEnv } from './helpers';

const TIMEOUT_MS = 6000;
const WARN_MS = 3000;
/** Timers, messages between tabs and rendering: how late anything may show on a busy machine. */
const SLACK_MS = 1500;

const dialog = (page: Page) => page.getByRole('alertdialog', { name: 'Are you still there?' });
const stay = (page: Page) => dialog(page).getByRole('button', { name: 'Stay signed in' });

/** Waits for the warning in `page`, no later than it is due; returns the seconds its countdown showed. */
async function warned(page: Page): Promise<number> {
  await dialog(page).waitFor({ timeout: TIMEOUT_MS + SLACK_MS });
  const left = Number(
    await dialog(page)
      .locator('[data-idle-left]')
      .textContent()
      .then((t) => t?.split(' ')[0]),
  );
  return left;
}

describe('idle sign-out', () => {
  const env = useEnv({
    extraConfig: (idp) => ({
      revocationUrl: idp.accountUrl + '/connect/revocation',
      idleTimeoutMs: TIMEOUT_MS,
      idleWarnMs: WARN_MS,
    }),
  });

  it('warns in both tabs, Stay signed in and Escape keep both, and left alone both sign out and revoke once', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    await joined(page);
    const second = await context.newPage();
    await second.goto(app.url + '#/profile');
    await readClaims(second);
    const tabs = [page, second];

    // A key pressed in the second tab is the last activity (input, not opening a tab, moves the app
    // worker's idle deadline): the warning comes WARN_MS before the end, in both.
    await second.keyboard.press('Shift');
    const opened = Date.now();
    for (const tab of tabs) {
      const left = await warned(tab);
      expect(left).toBeGreaterThanOrEqual(1);
      expect(left).toBeLessThanOrEqual(WARN_MS / 1000);
    }
    const shownAfter = Date.now() - opened;
    expect(shownAfter).toBeGreaterThanOrEqual(TIMEOUT_MS - WARN_MS - SLACK_MS);
    expect(shownAfter).toBeLessThanOrEqual(TIMEOUT_MS - WARN_MS + SLACK_MS);
    // Focus moved into the dialog, on its button.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Stay signed in');

    // Stay signed in in one tab keeps both: the button acts on its click, and the dialog stays under the
    // press until then (input no longer counts while it warns), so Playwright's own check of what the
    // press hits passes without `force`. A key pressed elsewhere meanwhile keeps nothing.
    await second.keyboard.press('Shift');
    expect(await dialog(second).isVisible()).toBe(true);
    await stay(second).click();
    for (const tab of tabs) await dialog(tab).waitFor({ state: 'hidden' });
    for (const tab of tabs) await readClaims(tab);

    // Escape in the other keeps both too.
    await warned(page);
    await dialog(second).waitFor();
    await page.keyboard.press('Escape');
    for (const tab of tabs) await dialog(tab).waitFor({ state: 'hidden' });

    // Left alone: both sign out, with a notice saying why.
    await warned(page);
    const notice = 'You were signed out after 6 seconds without activity.';
    for (const tab of tabs) {
      await tab
        .getByRole('alert')
        .filter({ hasText: notice })
        .waitFor({ timeout: WARN_MS + SLACK_MS });
      expect(await dialog(tab).count()).toBe(0);
      expect(await tab.locator('[data-claim="sub"]').count()).toBe(0);
    }

    // The refresh token no longer works at the provider, revoked by one tab only (access and refresh token).
    const [issued] = tokenResponses(log);
    await expect
      .poll(
        async () => (await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, String(issued.refresh_token))).status,
      )
      .toBe(400);
    await log.settle();
    expect(log.matching(idp.accountUrl + '/connect/revocation', 'POST')).toHaveLength(2);

    // The provider's session may outlive ours: the next sign-in asks for the person again.
    await page.getByRole('alert').getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Username').waitFor();
    expect(prompts(log).at(-1)).toBe('login');
  });
});

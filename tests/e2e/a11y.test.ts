// Issue 7: every screen a person can meet passes axe-core (WCAG 2.x A and AA, plus best practices),
// in the light and the dark colour scheme.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeViolations, scanA11y } from '../support/a11y';
import { consent, login } from '../support/flows';
import { ALICE, readClaims, signIn, useEnv, type Env, type Session } from './helpers';

/** Brings the session to one screen and waits until that screen has settled. */
type Screen = (session: Session, env: Env) => Promise<void>;

const appButton = (page: Page) => page.getByRole('button', { name: 'Sign in', exact: true });

const screens: Record<string, Screen> = {
  'the start page': async ({ page }, env) => {
    await page.goto(env.stack.app.url);
    await appButton(page).waitFor();
  },
  'the profile': async (session, env) => {
    await signIn(session, env.stack.app.url, '#/profile');
    await readClaims(session.page);
  },
  'the API page': async (session, env) => {
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/api');
    await session.page.getByTestId('api-result').waitFor();
  },
  'a sign-in error alert': async ({ page }, env) => {
    await page.goto(env.stack.app.url);
    await appButton(page).click();
    await login(page, ALICE.username, ALICE.password);
    await consent(page, 'Cancel');
    await page
      .getByRole('alert')
      .filter({ hasText: /cancelled/i })
      .waitFor();
  },
  'the configuration error page': async ({ page }, env) => {
    // A config.json without the required clientId; the next screen gets the good one back.
    const { clientId: _dropped, ...broken } = env.stack.config;
    env.stack.app.setConfig(broken);
    try {
      await page.goto(env.stack.app.url);
      await page.getByRole('heading', { name: 'This app is not configured correctly' }).waitFor();
    } finally {
      env.stack.app.setConfig(env.stack.config);
    }
  },
};

describe('accessibility', () => {
  const env = useEnv();

  describe.each(['light', 'dark'] as const)('%s colour scheme', (colorScheme) => {
    it.each(Object.keys(screens))('%s has no axe violation', async (name) => {
      // Only this context bypasses the CSP, so that axe can be injected; the app's CSP is unchanged.
      const session = await env.open({ bypassCSP: true, colorScheme });
      await screens[name](session, env);
      expect(await session.page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(colorScheme === 'dark');

      const violations = await scanA11y(session.page);
      expect(violations, `axe found on ${name} (${colorScheme}):\n${describeViolations(violations)}`).toEqual([]);
    });
  });
});

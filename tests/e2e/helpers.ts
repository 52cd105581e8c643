// Shared set-up for the end-to-end files: one browser + app + provider per file, a fresh context
// (with its request log, console and CSP recorders) per test.
import { afterAll, afterEach, beforeAll, expect, type TestContext } from 'vitest';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import {
  captureBodies,
  collectConsole,
  collectCspViolations,
  launchBrowser,
  recordRequests,
  type ConsoleEntry,
  type CspViolation,
  type RequestLog,
} from '../support/browser';
import { signInAs } from '../support/flows';
import { startStack, type Stack, type StackOptions } from '../support/stack';

export const ALICE = {
  username: 'alice',
  password: 'wonderland',
  name: 'Alice Liddell',
  email: 'alice@example.test',
};

export interface Env {
  browser: Browser;
  stack: Stack;
  /** A fresh browser context for this test (with Playwright's context `options`), closed after it. */
  open(options?: BrowserContextOptions): Promise<Session>;
}

/** Start browser, app and provider before the file's tests and stop them after. */
export function useEnv(options: StackOptions = {}): Env {
  const open: Session[] = [];
  const env = {
    async open(options?: BrowserContextOptions) {
      const session = await newSession(env.browser, options);
      open.push(session);
      return session;
    },
  } as Env;
  beforeAll(async () => {
    env.stack = await startStack(options);
    env.browser = await launchBrowser();
  });
  afterEach((context) => closeSessions(open, context));
  afterAll(async () => {
    await env.browser?.close();
    await env.stack?.close();
  });
  return env;
}

export interface Session {
  context: BrowserContext;
  page: Page;
  /** Every request of every page in the context; token, userinfo and API bodies of `page` are kept. */
  log: RequestLog;
  console: ConsoleEntry[];
  csp: CspViolation[];
}

export async function newSession(browser: Browser, options?: BrowserContextOptions): Promise<Session> {
  const context = await browser.newContext(options);
  const csp = await collectCspViolations(context);
  const log = recordRequests(context, { bodies: /\/connect\/(token|userinfo)|\/api\/greeting/ });
  const consoleEntries = collectConsole(context);
  const page = await context.newPage();
  await captureBodies(page, log, ['*/connect/token*', '*/connect/userinfo*', '*/api/greeting*']);
  return { context, page, log, console: consoleEntries, csp };
}

/** Without its query: a callback's code and state stay out of the report. */
const withoutQuery = (href: string) => {
  const url = new URL(href);
  return url.origin + url.pathname + url.hash.split('?')[0];
};

/**
 * What a failed test left on screen and on the wire, for CI's log: each page's address and visible
 * text, its last console messages and the context's last requests with their outcome.
 */
async function report({ context, log, console: messages }: Session): Promise<string> {
  const lines = ['--- what the failed test left:'];
  for (const page of context.pages()) {
    const text = await page
      .locator('body')
      .innerText({ timeout: 2000 })
      .catch((err: Error) => `(unreadable: ${err.message.split('\n')[0]})`);
    lines.push(`page ${withoutQuery(page.url())}:`, text.replace(/\s+/g, ' ').slice(0, 800));
  }
  for (const { type, text } of messages.slice(-10)) lines.push(`console ${type}: ${text.slice(0, 300)}`);
  const start = log.entries[0]?.time ?? 0;
  for (const entry of log.entries.slice(-20)) {
    const outcome = entry.failure ?? entry.status ?? 'pending';
    const grant = entry.url.includes('/connect/token') ? ` (${new URLSearchParams(entry.postData ?? '').get('grant_type')})` : '';
    lines.push(`+${entry.time - start} ms ${entry.method} ${withoutQuery(entry.url)}${grant} -> ${outcome}`);
  }
  return lines.join('\n');
}

/** After each test: closes the contexts it opened (emptying `open`), first printing what a failed one left. */
export async function closeSessions(open: Session[], { task }: TestContext): Promise<void> {
  const failed = task.result?.state === 'fail';
  for (const session of open.splice(0)) {
    if (failed) console.log(await report(session));
    await session.context.close();
  }
}

/** Open the app (at `hash`), click its "Sign in" if it offers one, and sign in as alice. */
export async function signIn(session: Session, appUrl: string, hash = ''): Promise<void> {
  const { page } = session;
  await page.goto(appUrl + hash);
  // '#/' offers a button; '#/signin' and '#/profile' go to the provider by themselves (or offer the button).
  // The provider's login page has a "Sign in" button too, so only click while still on the app.
  const username = page.getByLabel('Username');
  const appButton = page.getByRole('button', { name: 'Sign in', exact: true });
  await username.or(appButton).first().waitFor();
  if (page.url().startsWith(appUrl) && !(await username.isVisible())) await appButton.click();
  await signInAs(page, ALICE.username, ALICE.password, appUrl);
}

/** Wait for the profile page and read its four claims. */
export async function readClaims(page: Page): Promise<Record<string, string>> {
  await page.locator('[data-claim="sub"]').waitFor();
  const claims: Record<string, string> = {};
  for (const name of ['sub', 'email', 'name', 'preferred_username']) {
    claims[name] = ((await page.locator(`[data-claim="${name}"]`).textContent()) ?? '').trim();
  }
  return claims;
}

/**
 * The signed-in tab has joined the app's session engine: it holds its page lock ('auth page …', held
 * while a page is connected) and has written the browser's 'had-session' hint ('1'). A tab opened before
 * that, while the first is still exchanging its code, finds no hint and rightly shows Sign in.
 */
export async function joined(page: Page) {
  await expect
    .poll(() =>
      page.evaluate(async () => {
        const paged = (await navigator.locks.query()).held?.some((l) => l.name?.startsWith('auth page '));
        const hinted = Object.keys(localStorage).some((key) => key.startsWith('auth:hint ') && localStorage.getItem(key) === '1');
        return paged && hinted;
      }),
    )
    .toBe(true);
}

/** The hash route of the page, e.g. '#/profile'. */
export const routeOf = (page: Page) => new URL(page.url()).hash;

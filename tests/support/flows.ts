// What a person does at the identity provider, and how tests read the protocol traffic back.
import type { Page } from 'playwright-core';
import type { RecordedRequest, RequestLog } from './browser';

/** Fill our provider's login page. Waits for the "Username" field, so it never clicks the app's own "Sign in". */
export async function login(page: Page, user: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Answer the provider's consent page. */
export async function consent(page: Page, answer: 'Allow' | 'Cancel'): Promise<void> {
  await page.getByRole('button', { name: answer, exact: true }).click();
}

/** Log in and allow access; returns once the browser is back on the app's origin. */
export async function signInAs(page: Page, user: string, password: string, appUrl?: string): Promise<void> {
  await login(page, user, password);
  await consent(page, 'Allow');
  if (appUrl) await page.waitForURL((url) => url.href.startsWith(appUrl));
}

/**
 * Answer the provider's sign-out prompt ("Sign out?") as a person would; with `appUrl`, returns once the
 * browser is back on the app's origin. Waits for the prompt's heading, so it never clicks the app's own "Sign out".
 */
export async function answerSignOut(page: Page, answer: 'Sign out' | 'Stay signed in', appUrl?: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign out?' }).waitFor();
  await page.getByRole('button', { name: answer, exact: true }).click();
  if (appUrl) await page.waitForURL((url) => url.href.startsWith(appUrl));
}

/** The decoded form fields of a recorded POST (token requests are form-encoded). */
export function formOf(entry: RecordedRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(entry.postData ?? ''));
}

/** Token endpoint POSTs, optionally only one grant type. */
export function tokenRequests(log: RequestLog, grantType?: string): RecordedRequest[] {
  return log.matching('/connect/token', 'POST').filter((e) => !grantType || formOf(e).grant_type === grantType);
}

/** Parsed JSON bodies of successful token responses (needs recordRequests(..., { bodies: /connect\/token/ })). */
export function tokenResponses(log: RequestLog): Record<string, unknown>[] {
  return tokenRequests(log)
    .filter((e) => e.status === 200 && e.body)
    .map((e) => JSON.parse(e.body as string) as Record<string, unknown>);
}

/** Requests to the end-session endpoint itself (RP-Initiated Logout), by any method; not its confirm step. */
export function endSessionRequests(log: Pick<RequestLog, 'entries'>): RecordedRequest[] {
  return log.entries.filter((e) => new URL(e.url).pathname === '/connect/endsession');
}

/** Top-level navigations that brought an authorization response back to the app. */
export function callbacks(log: RequestLog, appUrl: string): RecordedRequest[] {
  return log.entries.filter((e) => e.isNavigation && e.url.startsWith(appUrl) && /[?&](code|error|state)=/.test(e.url));
}

/** Authorization requests (top-level navigations to /connect/authorize). */
export function authorizeRequests(log: RequestLog): RecordedRequest[] {
  return log.entries.filter((e) => e.isNavigation && new URL(e.url).pathname === '/connect/authorize');
}

/** The `prompt` of each authorization request, '' where it had none. */
export function prompts(log: RequestLog): string[] {
  return authorizeRequests(log).map((e) => new URL(e.url).searchParams.get('prompt') ?? '');
}

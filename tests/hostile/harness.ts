// Runs one variant: a fresh browser context against the shared app server and hostile server,
// the variant's steps, then everything the oracle needs collected into one Observation.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { collectConsole, collectCspViolations, launchBrowser, recordRequests } from '../support/browser';
import { serveApp, type AppServer } from '../support/static-server';
import { judge, logExcerpt, type Expectation, type Observation, type PageProbe, type Secret } from './oracle';
import { startHostileServer, type Behaviour, type HostileServer } from './server';

export const CLIENT_ID = 'hostile-client';
/** The app's per-request timeout in this suite, so "never answers" cases end in seconds. */
export const APP_TIMEOUT_MS = 3000;
/** How long a page may take to reach an end state: the app's timeout plus generous slack for a busy CI. */
const SETTLE_MS = APP_TIMEOUT_MS + 12_000;

/** What cases can use to build payloads: the hostile origins. */
export interface Env {
  accountUrl: string;
  authUrl: string;
  canaryUrl: string;
  issuer: string;
}

export type End = 'alert' | 'signedIn' | 'signedOut' | 'stuck';

/** The steps a variant can script. Every wait is on a condition, never on time. */
export interface Steps {
  env: Env;
  page: Page;
  appUrl: string;
  server: HostileServer;
  newPage(): Promise<Page>;
  /** Start a sign-in the way a person does (#/signin) and wait for its end state. */
  signIn(page?: Page): Promise<End>;
  /** Open a URL (e.g. a callback) and wait for the end state. */
  open(page: Page, url: string, options?: { allowSignedOut?: boolean }): Promise<End>;
  settle(page: Page, options?: { allowSignedOut?: boolean }): Promise<End>;
  /** Click "Sign out" and wait until the signed-out page (its "Sign in" button) is shown. */
  signOut(page: Page): Promise<void>;
  /** From here on the bad input is in play: request limits and the outcome apply after this. */
  mark(): void;
}

export interface Variant {
  name: string;
  /** False for checks that are not hostile inputs (the app's own requests). Default true. */
  input?: boolean;
  behaviour?: (env: Env) => Behaviour;
  config?: Record<string, unknown>;
  /** A function when the expectation names what the hostile origins put into the payload. */
  expect?: Partial<Expectation> | ((env: Env) => Partial<Expectation>);
  /** Attacker-chosen values the app must not use or leak (forged codes, smuggled tokens). */
  secrets?: (env: Env) => Secret[];
  run?: (s: Steps) => Promise<void>;
}

export interface Verdict {
  variant: string;
  problems: string[];
  evidence: string;
  ms: number;
}

/**
 * In-page check for an end state: a visible alert, a signed-in page, or (if allowed) a signed-out page.
 * Signed in is what only a signed-in session shows (the claims, the header's username), never the
 * "Sign out" button: the app offers it in failed and expired states too, where the alert is loaded on
 * demand and may arrive a moment after the button, so a page with it and no alert is still working.
 */
function endState({ appOrigin, allowSignedOut }: { appOrigin: string; allowSignedOut: boolean }): string | false {
  if (location.origin !== appOrigin || document.readyState === 'loading') return false;
  const shown = (e: Element) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const text = (e: Element) => (e.textContent ?? '').trim();
  if ([...document.querySelectorAll('[role="alert"]')].some((e) => shown(e) && text(e))) return 'alert';
  if ([...document.querySelectorAll('[role="status"]')].some((e) => shown(e) && text(e))) return false; // still working
  if (document.querySelector('[data-claim], .who')) return 'signedIn';
  const controls = [...document.querySelectorAll('button, a')].filter(shown);
  if (controls.some((b) => /^sign out$/i.test(text(b)))) return false; // a failure whose alert is on its way
  if (allowSignedOut && controls.some((b) => b.tagName === 'BUTTON' && /^sign in$/i.test(text(b)))) return 'signedOut';
  return false;
}

/** Everything the DOM and storage of a page show, read after two frames so late re-renders land. */
async function probe(page: Page): Promise<PageProbe> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.evaluate(() => {
    const shown = (e: Element) => e.getClientRects().length > 0;
    const text = (e: Element) => (e.textContent ?? '').trim();
    const dump = (s: Storage) =>
      Object.fromEntries(Array.from({ length: s.length }, (_, i) => s.key(i) ?? '').map((k) => [k, s.getItem(k) ?? '']));
    const alerts = [...document.querySelectorAll('[role="alert"]')].filter((e) => shown(e) && text(e));
    const controls = [...document.querySelectorAll('button, a')].filter(shown);
    const w = window as unknown as { __pwned?: unknown };
    return {
      url: location.href,
      alert: alerts.length ? alerts.map(text).join(' | ') : null,
      errorCodes: [...document.querySelectorAll('[data-error-code]')].map(text),
      claims: Object.fromEntries(
        [...document.querySelectorAll('[data-claim]')].map((e) => [e.getAttribute('data-claim') ?? '', text(e)]),
      ),
      headings: [...document.querySelectorAll('h1, h2')].map(text).join(' | '),
      who: ((e) => (e ? text(e) : null))(document.querySelector('.who')),
      signOut: controls.some((b) => /^sign out$/i.test(text(b))),
      pwned: w.__pwned !== undefined,
      polluted: 'polluted' in {} || Object.getOwnPropertyNames(Object.prototype).includes('polluted'),
      injected: [...document.querySelectorAll('[data-pwn]')].map((e) => e.outerHTML.slice(0, 200)),
      scriptUrls: [...document.querySelectorAll('[href], [src], [action], [formaction]')]
        .map((e) => ['href', 'src', 'action', 'formaction'].map((a) => e.getAttribute(a) ?? '').join(' '))
        .filter((v) => /(^|\s)\s*javascript:/i.test(v.replace(/[\u0000-\u0020]/g, ' '))),
      bodyTextLength: (document.body?.innerText ?? '').length,
      localStorage: dump(localStorage),
      sessionStorage: dump(sessionStorage),
      cookies: document.cookie,
    };
  });
}

/** Records every Web Storage write, so a secret stored and removed again is still caught. */
function hookStorage(): void {
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
    try {
      const area = this === window.localStorage ? 'local' : 'session';
      (window as unknown as { __hostileStorage(a: string, k: string, v: string): void }).__hostileStorage(
        area,
        String(key),
        String(value),
      );
    } catch {
      // Recording must never change the app's behaviour.
    }
    return setItem.call(this, key, value);
  };
}

export interface Harness {
  env: Env;
  server: HostileServer;
  app: AppServer;
  run(variant: Variant, defaults: Expectation): Promise<Verdict>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const server = await startHostileServer({ clientId: CLIENT_ID });
  let app: AppServer | undefined;
  let browser: Browser | undefined;
  try {
    app = await serveApp();
    browser = await launchBrowser();
  } catch (err) {
    await app?.close();
    await server.close();
    throw err;
  }
  const appOrigin = new URL(app.url).origin;
  server.configure({ origin: appOrigin, redirectUri: app.url });
  const env: Env = { accountUrl: server.accountUrl, authUrl: server.authUrl, canaryUrl: server.canaryUrl, issuer: server.issuer };
  const origins = { app: appOrigin, account: server.accountUrl, auth: server.authUrl, canary: server.canaryUrl };

  async function run(variant: Variant, defaults: Expectation): Promise<Verdict> {
    const started = Date.now();
    const own = typeof variant.expect === 'function' ? variant.expect(env) : variant.expect;
    const expect: Expectation = { ...defaults, ...own };
    server.setCase(variant.behaviour?.(env) ?? {});
    app!.setConfig({
      accountUrl: env.accountUrl,
      authUrl: env.authUrl,
      clientId: CLIENT_ID,
      timeoutMs: APP_TIMEOUT_MS,
      ...variant.config,
    });

    const context: BrowserContext = await browser!.newContext();
    const requests = recordRequests(context);
    const consoleLog = collectConsole(context);
    const csp = await collectCspViolations(context);
    const storageWrites: Observation['storageWrites'] = [];
    await context.exposeBinding(
      '__hostileStorage',
      (_source, area: string, key: string, value: string) => void storageWrites.push({ area, key, value }),
    );
    await context.addInitScript(hookStorage);

    const ours = new Set<Page>();
    const pages: Page[] = [];
    const navigations: string[] = [];
    context.on('page', (p) => {
      pages.push(p);
      p.on('framenavigated', (f) => f === p.mainFrame() && navigations.push(f.url()));
    });
    // The bad input starts at the last mark(); the outcome is judged on pages that settled after it.
    const ends = new Map<Page, { end: End; mark: number }>();
    const stuck: string[] = [];
    let markSeq = 0;
    let markId = 0;

    const settle = async (page: Page, options: { allowSignedOut?: boolean } = {}): Promise<End> => {
      let end: End;
      try {
        const handle = await page.waitForFunction(
          endState,
          { appOrigin, allowSignedOut: options.allowSignedOut ?? false },
          { timeout: SETTLE_MS },
        );
        end = (await handle.jsonValue()) as End;
      } catch {
        end = 'stuck';
        const status = await page
          .locator('[role="status"]')
          .allTextContents()
          .catch(() => []);
        stuck.push(
          `no end state (alert or profile) within ${SETTLE_MS} ms; at ${page.url().slice(0, 100)}, status: ${JSON.stringify(status)}`,
        );
      }
      ends.set(page, { end, mark: markId });
      return end;
    };
    const steps: Steps = {
      env,
      page: undefined as unknown as Page,
      appUrl: app!.url,
      server,
      async newPage() {
        const p = await context.newPage();
        ours.add(p);
        return p;
      },
      async signIn(page = steps.page) {
        await page.goto(app!.url + '#/signin', { waitUntil: 'commit' });
        return settle(page);
      },
      async open(page, url, options) {
        await page.goto(url, { waitUntil: 'commit' });
        return settle(page, options);
      },
      settle,
      async signOut(page) {
        await page.getByRole('button', { name: 'Sign out' }).first().click();
        await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor({ timeout: SETTLE_MS });
      },
      mark() {
        markId++;
        markSeq = server.log.at(-1)?.seq ?? 0;
      },
    };

    const problems: string[] = [];
    const all: PageProbe[] = [];
    const judged: Observation['judged'] = [];
    try {
      steps.page = await steps.newPage();
      steps.mark();
      await (variant.run ?? ((s: Steps) => s.signIn().then(() => undefined)))(steps);
      await requests.settle(3000);
      for (const p of pages) {
        if (p.isClosed()) continue;
        const result = await probe(p);
        all.push(result);
        const end = ends.get(p);
        if (end?.mark === markId) judged.push({ ...result, end: end.end });
      }
    } catch (err) {
      problems.push(`harness: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    const observation: Observation = {
      origins,
      serverLog: server.log,
      violations: server.violations,
      secrets: server.secrets(),
      extraSecrets: variant.secrets?.(env) ?? [],
      markSeq,
      requests: requests.entries,
      console: consoleLog,
      csp,
      storageWrites,
      navigations,
      popups: pages.filter((p) => !ours.has(p)).map((p) => p.url()),
      judged,
      all,
      stuck,
    };
    problems.push(...judge(observation, expect));
    await context.close();
    const evidence = [
      `  pages: ${all.map((p) => `${p.url} alert=${JSON.stringify(p.alert?.slice(0, 160) ?? null)}`).join('; ')}`,
      '  hostile server log:',
      logExcerpt(server.log),
      ...consoleLog.slice(0, 6).map((m) => `  console ${m.type}: ${m.text.slice(0, 160)}`),
    ].join('\n');
    return { variant: variant.name, problems, evidence, ms: Date.now() - started };
  }

  return {
    env,
    server,
    app,
    run,
    async close() {
      await browser?.close();
      await app?.close();
      await server.close();
    },
  };
}

// Headless Chromium from the system (never downloaded) plus recorders shared by the e2e and hostile
// suites: what the browser sent, what it stored, what it logged, and which CSP rules it broke.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';

/**
 * The browser the suites drive: `CHROME_PATH` if set; else Debian's `chromium-headless-shell` (Chromium's
 * old headless mode, the build Playwright itself runs headless), which needs about half the CPU of the
 * full browser for the same tests (docs/testing.md); else the full `chromium`. Never downloaded.
 */
function testBrowserPath(): string {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  return ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ?? '/usr/bin/chromium';
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = testBrowserPath();
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}. Install one with "sudo apt-get install chromium-headless-shell" ` +
        '(Debian/Ubuntu) or set CHROME_PATH to a Chromium/Chrome executable.',
    );
  }
  return chromium.launch({
    executablePath,
    // Each test makes a fresh context; these flags keep the browser quiet and off the network.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface RecordedRequest {
  url: string;
  method: string;
  /** Lower-cased names; upgraded to the full set (allHeaders) shortly after the request starts. */
  headers: Record<string, string>;
  postData: string | null;
  resourceType: string;
  isNavigation: boolean;
  /** Date.now() when the browser sent it, and when its response headers arrived. */
  time: number;
  responseTime?: number;
  /** Response status once it arrived (undefined while pending or when the request failed). */
  status?: number;
  /** Response body text: URLs matching the recorder's `bodies` pattern, or captured by captureBodies(). Read after settle(). */
  body?: string;
  failure?: string;
}

export interface RequestLog {
  entries: RecordedRequest[];
  /** Wait (at most timeoutMs, default 5 s) until headers/bodies being read asynchronously are filled in. */
  settle(timeoutMs?: number): Promise<void>;
  /** Entries whose URL matches (string = substring). */
  matching(pattern: string | RegExp, method?: string): RecordedRequest[];
  clear(): void;
  /** Used by captureBodies(): give the body to the latest matching entry that has none yet. */
  addBody(method: string, url: string, postData: string | undefined, body: string): void;
}

/** Record every request sent by a page or by all pages of a context. */
export function recordRequests(target: Page | BrowserContext, options: { bodies?: RegExp } = {}): RequestLog {
  const entries: RecordedRequest[] = [];
  const pending = new Set<Promise<unknown>>();
  const byRequest = new WeakMap<Request, RecordedRequest>();
  // Bodies captured before Playwright reported their request; placed again by settle().
  let unplaced: { method: string; url: string; postData: string | undefined; body: string }[] = [];
  const track = (p: Promise<unknown>) => {
    const q = p.catch(() => undefined).finally(() => pending.delete(q));
    pending.add(q);
  };

  target.on('request', (request: Request) => {
    const entry: RecordedRequest = {
      url: request.url(),
      method: request.method(),
      headers: request.headers(),
      postData: request.postData(),
      resourceType: request.resourceType(),
      isNavigation: request.isNavigationRequest(),
      time: Date.now(),
    };
    entries.push(entry);
    byRequest.set(request, entry);
    // headers() can omit headers added by the network stack; allHeaders() has them all.
    track(request.allHeaders().then((h) => void (entry.headers = h)));
  });
  target.on('response', (response) => {
    const entry = byRequest.get(response.request());
    if (!entry) return;
    entry.status = response.status();
    entry.responseTime = Date.now();
  });
  // Bodies are read once the response has ended. Chromium sometimes reports a fetch whose body the
  // page already read in full as failed (net::ERR_ABORTED), so failed requests are tried too.
  const readBody = (request: Request) => {
    const entry = byRequest.get(request);
    if (!entry || !options.bodies?.test(entry.url)) return;
    track(request.response().then(async (r) => void (entry.body ??= await r?.text())));
  };
  target.on('requestfinished', readBody);
  target.on('requestfailed', (request: Request) => {
    const entry = byRequest.get(request);
    if (entry) entry.failure = request.failure()?.errorText ?? 'failed';
    readBody(request);
  });

  const log: RequestLog = {
    entries,
    async settle(timeoutMs = 5_000) {
      // Bounded: a request that never completes (aborted page, open stream) must not hang a test.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      const drain = (async () => {
        while (pending.size) await Promise.all([...pending]);
      })();
      await Promise.race([drain, deadline]);
      clearTimeout(timer);
      const retry = unplaced;
      unplaced = [];
      for (const b of retry) log.addBody(b.method, b.url, b.postData, b.body);
    },
    matching(pattern, method) {
      return entries.filter(
        (e) =>
          (typeof pattern === 'string' ? e.url.includes(pattern) : pattern.test(e.url)) &&
          (!method || e.method === method.toUpperCase()),
      );
    },
    clear() {
      entries.length = 0;
    },
    addBody(method, url, postData, body) {
      const entry = entries.findLast(
        (e) => !e.body && e.method === method && e.url === url && (e.postData ?? undefined) === postData,
      );
      if (entry) entry.body = body;
      else unplaced.push({ method, url, postData, body });
    },
  };
  return log;
}

/**
 * Read response bodies inside Chromium (DevTools Fetch domain, response stage) for URLs matching
 * the glob patterns ('*' wildcards), into `log`. Needed because Chromium may report a fetch whose
 * body the page read in full as cancelled, after which Playwright can no longer read that body.
 * The response reaches the page unchanged. Call before the page sends those requests.
 */
export async function captureBodies(page: Page, log: RequestLog, urlPatterns: string[]): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  cdp.on('Fetch.requestPaused', async ({ requestId, request, responseStatusCode }) => {
    try {
      if (responseStatusCode && (responseStatusCode < 300 || responseStatusCode >= 400)) {
        const { body, base64Encoded } = await cdp.send('Fetch.getResponseBody', { requestId });
        log.addBody(request.method, request.url, request.postData, base64Encoded ? Buffer.from(body, 'base64').toString() : body);
      }
    } catch {
      // The page or request went away; nothing to record.
    } finally {
      await cdp.send('Fetch.continueRequest', { requestId }).catch(() => undefined);
    }
  });
  await cdp.send('Fetch.enable', {
    patterns: urlPatterns.map((urlPattern) => ({ urlPattern, requestStage: 'Response' as const })),
  });
}

export interface PageState {
  url: string;
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  /** document.cookie of the app's origin (the app sets none; tokens must never land there). */
  cookies: string;
  /** history.state and window.name: other places a careless app could leave a secret. */
  historyState: string;
  windowName: string;
  /** Every IndexedDB database's stores and records, and the Cache Storage's cached URLs. */
  indexedDB: string;
  caches: string[];
}

/**
 * The page's URL, Web Storage, cookies, history.state, window.name, IndexedDB and Cache Storage, to check
 * no secret was left behind.
 */
export async function pageState(page: Page): Promise<PageState> {
  const storage = await page.evaluate(async () => {
    const dump = (s: Storage) =>
      Object.fromEntries(Array.from({ length: s.length }, (_, i) => s.key(i) ?? '').map((k) => [k, s.getItem(k) ?? '']));
    const request = <T>(r: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
    const databases: Record<string, Record<string, unknown[]>> = {};
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await request(indexedDB.open(name));
      databases[name] = {};
      for (const store of db.objectStoreNames) {
        databases[name][store] = await request(db.transaction(store).objectStore(store).getAll());
      }
      db.close();
    }
    const cached: string[] = [];
    for (const key of await caches.keys()) cached.push(...(await (await caches.open(key)).keys()).map((r) => r.url));
    return {
      localStorage: dump(window.localStorage),
      sessionStorage: dump(window.sessionStorage),
      cookies: document.cookie,
      historyState: JSON.stringify(history.state) ?? '',
      windowName: window.name,
      indexedDB: JSON.stringify(databases),
      caches: cached,
    };
  });
  return { url: page.url(), ...storage };
}

export interface ConsoleEntry {
  type: string;
  text: string;
  url: string;
}

/** Console messages (and uncaught page errors, as type 'pageerror') from a page or a whole context. */
export function collectConsole(target: Page | BrowserContext): ConsoleEntry[] {
  const messages: ConsoleEntry[] = [];
  target.on('console', (msg) => messages.push({ type: msg.type(), text: msg.text(), url: msg.location().url }));
  const onError = (err: Error) => messages.push({ type: 'pageerror', text: String(err?.stack ?? err), url: '' });
  if ('newPage' in target) {
    target.on('weberror', (e) => onError(e.error()));
  } else {
    target.on('pageerror', onError);
  }
  return messages;
}

const CSP_MARK = '[csp-violation]';

export interface CspViolation {
  /** 'event' from the securitypolicyviolation listener, 'console' from Chromium's own report. */
  source: 'event' | 'console';
  text: string;
  directive?: string;
  blockedURI?: string;
  /** URL of the page that reported it. */
  page: string;
}

/**
 * Collect CSP violations in every page of a context. Two independent signals: a
 * `securitypolicyviolation` listener injected before any page script, and Chromium's own
 * "Refused to …" console report (which also covers violations the page cannot observe).
 * Call before opening pages.
 */
export async function collectCspViolations(context: BrowserContext): Promise<CspViolation[]> {
  const violations: CspViolation[] = [];
  await context.addInitScript((mark: string) => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(
        mark +
          ' ' +
          JSON.stringify({
            directive: e.effectiveDirective || e.violatedDirective,
            blockedURI: e.blockedURI,
            page: location.href,
            disposition: e.disposition,
            source: e.sourceFile,
            line: e.lineNumber,
          }),
      );
    });
  }, CSP_MARK);
  context.on('console', (msg) => {
    const text = msg.text();
    const page = msg.page()?.url() ?? msg.location().url;
    if (text.startsWith(CSP_MARK)) {
      const detail = JSON.parse(text.slice(CSP_MARK.length)) as { directive?: string; blockedURI?: string; page: string };
      violations.push({ source: 'event', text, directive: detail.directive, blockedURI: detail.blockedURI, page: detail.page });
    } else if (/Content Security Policy/i.test(text)) {
      violations.push({ source: 'console', text, page });
    }
  });
  return violations;
}

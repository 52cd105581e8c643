// Headless Chromium from the system (never downloaded) plus recorders shared by the e2e and hostile
// suites: what the browser sent, what it stored, what it logged, and which CSP rules it broke.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page, type Request } from 'playwright-core';

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
  const browser = await chromium.launch({
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
  // Armed before any context exists, so the recorders see a shared worker's very first request.
  await SharedWorkerWatch.of(browser).ready;
  return browser;
}

/** A shared worker the watch is attached to. */
interface WorkerTarget {
  /** Its target id, which is also the DevTools request id of its script. */
  id: string;
  url: string;
  send(method: string, params?: object): Promise<unknown>;
}

/**
 * What the recorders give the watch for a context: every DevTools event of its shared workers, and
 * `Worker.scriptResponse` (not a DevTools event) with the url, status or failure of a worker's script.
 */
interface WorkerListener {
  /** Response bodies to read in the worker (Fetch domain, before the worker gets them), handed over in `Fetch.requestPaused`'s `body`. */
  bodies?: RegExp;
  event(method: string, params: Record<string, unknown>, worker: WorkerTarget): void;
}

interface WorkerSession {
  worker: WorkerTarget;
  context: WatchedContext;
}

/** The part of Fetch.requestPaused the watch reads. */
interface FetchPaused {
  requestId: string;
  networkId?: string;
  request: { url: string };
  responseStatusCode?: number;
  responseErrorReason?: string;
}

interface WatchedContext {
  listeners: Set<WorkerListener>;
  /** Whether the context's shared workers are offline (setOffline): a worker attached later is too. */
  offline?: boolean;
  /** Chromium's browserContextId, read from one of the context's pages once it has one. */
  id?: Promise<string | undefined>;
}

/**
 * The requests and console of every context's shared workers, which Playwright neither reports nor
 * routes (microsoft/playwright#33917). One browser-level DevTools session per browser:
 * - Playwright's own auto-attach resumes a worker paused on start at once, so waitForDebuggerOnStart
 *   cannot hold it for us. Instead a browser-level Fetch pause holds the worker's script request (resource
 *   type Other, networkId = the worker's target id) until our session is attached and its Network, Runtime,
 *   Log and Fetch domains are asked for: Chromium queues those ahead of the script, so its first fetch is seen.
 * - Playwright's CDPSession cannot speak to flattened child sessions, and Chromium refuses browser-level
 *   auto-attach without flatten, so the worker is attached with Target.attachToTarget({ flatten: false })
 *   and spoken to through Target.sendMessageToTarget / receivedMessageFromTarget.
 * - The commands' answers are not awaited before the script goes on: a worker that has not started answers
 *   nothing, and waiting for it would hold its own script forever.
 * Only workers of contexts a recorder listens to are attached. Chromium 156 gives shared workers no `Worker`,
 * so they start no dedicated workers to follow.
 */
class SharedWorkerWatch {
  private static watches = new WeakMap<Browser, SharedWorkerWatch>();

  /** The browser's watch, started if needed (launchBrowser starts it before any context exists). */
  static of(browser: Browser): SharedWorkerWatch {
    let watch = SharedWorkerWatch.watches.get(browser);
    if (!watch) SharedWorkerWatch.watches.set(browser, (watch = new SharedWorkerWatch(browser)));
    return watch;
  }

  readonly ready: Promise<void>;
  private cdp?: CDPSession;
  private lastId = 0;
  private calls = new Map<number, { sessionId: string; resolve(result: unknown): void; reject(error: Error): void }>();
  private contexts = new Map<BrowserContext, WatchedContext>();
  /** Each shared worker's attachment, once, by target id. */
  private workers = new Map<string, Promise<void>>();
  /** Our sessions with the workers, by session id. */
  private sessions = new Map<string, WorkerSession>();
  /** The same, by the worker's target id. */
  private byTarget = new Map<string, WorkerSession>();

  private constructor(browser: Browser) {
    this.ready = this.start(browser);
  }

  listen(context: BrowserContext, listener: WorkerListener): void {
    let watched = this.contexts.get(context);
    if (!watched) {
      this.contexts.set(context, (watched = { listeners: new Set() }));
      context.once('close', () => this.contexts.delete(context));
    }
    watched.listeners.add(listener);
  }

  /** Takes the context's shared workers off the network, or back on, as Playwright's setOffline does for its pages. */
  async setOffline(context: BrowserContext, offline: boolean): Promise<void> {
    const watched = this.contexts.get(context);
    if (!watched) throw new Error('setOffline: no recorder listens to this context');
    watched.offline = offline;
    const workers = [...this.byTarget.values()].filter((session) => session.context === watched);
    await Promise.all(workers.map(({ worker }) => worker.send(...networkConditions(offline)).catch(() => undefined)));
  }

  private async start(browser: Browser): Promise<void> {
    const cdp = (this.cdp = await browser.newBrowserCDPSession());
    cdp.on('Target.targetCreated', ({ targetInfo }) => {
      if (targetInfo.type === 'shared_worker') void this.attach(targetInfo);
    });
    cdp.on('Target.targetDestroyed', ({ targetId }) => {
      this.workers.delete(targetId);
      this.byTarget.delete(targetId);
    });
    cdp.on('Target.detachedFromTarget', ({ sessionId }) => sessionId && this.forget(sessionId));
    cdp.on('Fetch.requestPaused', (paused) => void this.holdScript(paused));
    cdp.on('Target.receivedMessageFromTarget', ({ sessionId, message }) => this.receive(sessionId, message));
    await cdp.send('Target.setDiscoverTargets', { discover: true, filter: [{ type: 'shared_worker' }] });
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Other', requestStage: 'Request' }] });
  }

  /**
   * A paused request of type Other. A shared worker's script waits until the worker is attached, and is
   * paused again at its response, which is handed to the recorders as `Worker.scriptResponse`: Playwright
   * reports the script as the page's request but never its response, and the worker's session often
   * reports it without its status.
   */
  private async holdScript({
    requestId,
    networkId,
    request,
    responseStatusCode,
    responseErrorReason,
  }: FetchPaused): Promise<void> {
    let interceptResponse = false;
    try {
      if (!networkId || !/^[0-9A-F]{32}$/.test(networkId)) return;
      if (responseStatusCode !== undefined || responseErrorReason) {
        const session = this.byTarget.get(networkId);
        if (session)
          this.dispatch(session, 'Worker.scriptResponse', {
            url: request.url,
            status: responseStatusCode,
            failure: responseErrorReason,
          });
        return;
      }
      const info = await this.cdp?.send('Target.getTargetInfo', { targetId: networkId }).catch(() => undefined);
      if (info?.targetInfo.type !== 'shared_worker') return;
      await this.attach(info.targetInfo);
      interceptResponse = this.byTarget.has(networkId);
    } finally {
      await this.cdp?.send('Fetch.continueRequest', { requestId, interceptResponse }).catch(() => undefined);
    }
  }

  private attach(info: { targetId: string; url: string; browserContextId?: string }): Promise<void> {
    let attached = this.workers.get(info.targetId);
    if (!attached) this.workers.set(info.targetId, (attached = this.doAttach(info).catch(() => undefined)));
    return attached;
  }

  private async doAttach({ targetId, url, browserContextId }: { targetId: string; url: string; browserContextId?: string }) {
    const context = browserContextId ? await this.watchedContext(browserContextId) : undefined;
    if (!context || !this.cdp) return;
    const { sessionId } = await this.cdp.send('Target.attachToTarget', { targetId, flatten: false });
    const worker: WorkerTarget = { id: targetId, url, send: (method, params) => this.post(sessionId, method, params).result };
    this.sessions.set(sessionId, { worker, context });
    this.byTarget.set(targetId, { worker, context });
    const domains: [string, object?][] = [
      ['Network.enable'],
      ['Runtime.enable'],
      ['Log.enable'],
      ['Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Response' }] }],
      ...(context.offline ? [networkConditions(true)] : []),
    ];
    // Sent, not answered: see the class comment.
    await Promise.all(domains.map(([method, params]) => this.post(sessionId, method, params).sent));
  }

  /** The watched context with Chromium's id `id`, if any. */
  private async watchedContext(id: string): Promise<WatchedContext | undefined> {
    for (const [context, watched] of this.contexts) {
      watched.id ??= contextIdOf(context);
      const known = await watched.id;
      if (known === undefined) watched.id = undefined;
      if (known === id) return watched;
    }
    return undefined;
  }

  private post(sessionId: string, method: string, params: object = {}): { sent: Promise<unknown>; result: Promise<unknown> } {
    const id = ++this.lastId;
    const result = new Promise((resolve, reject) => this.calls.set(id, { sessionId, resolve, reject }));
    result.catch(() => undefined);
    const message = JSON.stringify({ id, method, params });
    const sent = (
      this.cdp?.send('Target.sendMessageToTarget', { sessionId, message }) ?? Promise.reject(new Error('no session'))
    ).catch((error: Error) => this.settleCall(id, { error }));
    return { sent, result };
  }

  private settleCall(id: number, { result, error }: { result?: unknown; error?: { message: string } }) {
    const call = this.calls.get(id);
    this.calls.delete(id);
    if (error) call?.reject(new Error(error.message));
    else call?.resolve(result);
  }

  private receive(sessionId: string, text: string): void {
    const message = JSON.parse(text) as { id?: number; method?: string; params?: Record<string, unknown> } & Parameters<
      SharedWorkerWatch['settleCall']
    >[1];
    if (message.id) return this.settleCall(message.id, message);
    const session = this.sessions.get(sessionId);
    if (!session || !message.method) return;
    if (message.method === 'Inspector.targetCrashed' || message.method === 'Inspector.detached') return this.forget(sessionId);
    if (message.method === 'Fetch.requestPaused') return void this.readBody(session, message.params ?? {});
    this.dispatch(session, message.method, message.params ?? {});
  }

  /** A worker's response, paused: its body is read if a listener wants it, then it goes on unchanged. */
  private async readBody({ worker, context }: WorkerSession, params: Record<string, unknown>) {
    const { requestId, request, responseStatusCode } = params as {
      requestId: string;
      request: { url: string };
      responseStatusCode?: number;
    };
    try {
      let body: string | undefined;
      const redirect = responseStatusCode !== undefined && responseStatusCode >= 300 && responseStatusCode < 400;
      if (!redirect && [...context.listeners].some((l) => l.bodies?.test(request.url))) {
        const r = (await worker.send('Fetch.getResponseBody', { requestId })) as { body: string; base64Encoded: boolean };
        body = r.base64Encoded ? Buffer.from(r.body, 'base64').toString() : r.body;
      }
      this.dispatch({ worker, context }, 'Fetch.requestPaused', { ...params, body });
    } catch {
      // The worker or its request went away; nothing to record.
    } finally {
      await worker.send('Fetch.continueRequest', { requestId }).catch(() => undefined);
    }
  }

  private dispatch({ worker, context }: WorkerSession, method: string, params: Record<string, unknown>) {
    for (const listener of context.listeners) {
      try {
        listener.event(method, params, worker);
      } catch {
        // One recorder's bug must not stop the others.
      }
    }
  }

  private forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    for (const [id, call] of this.calls) {
      if (call.sessionId === sessionId) this.settleCall(id, { error: { message: 'worker session closed' } });
    }
  }
}

/** The DevTools command that takes a target off the network or back on (as Playwright's setOffline sends it). */
const networkConditions = (offline: boolean): [string, object] => [
  'Network.emulateNetworkConditions',
  { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 },
];

/**
 * The context offline or back online: its pages (Playwright's setOffline) and its shared workers, which
 * Playwright does not reach. Needs a recorder on the context (recordRequests), as the workers are its watch's.
 */
export async function setOffline(context: BrowserContext, offline: boolean): Promise<void> {
  const browser = context.browser();
  if (!browser) throw new Error('setOffline: the context has no browser');
  // The workers first: back online, a page's `online` event has the worker renew, which must find the network.
  await SharedWorkerWatch.of(browser).setOffline(context, offline);
  await context.setOffline(offline);
}

/** Chromium's browserContextId of a context, read from one of its pages (undefined while it has none). */
async function contextIdOf(context: BrowserContext): Promise<string | undefined> {
  const page = context.pages()[0];
  if (!page) return undefined;
  try {
    const cdp = await context.newCDPSession(page);
    try {
      return (await cdp.send('Target.getTargetInfo')).targetInfo.browserContextId;
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  } catch {
    return undefined;
  }
}

/** Header names lower-cased, as Playwright gives them; without the empty Referer Chromium lists for a withheld one. */
const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers)
      .map(([k, v]) => [k.toLowerCase(), v])
      .filter(([k, v]) => !(k === 'referer' && v === '')),
  );

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

/** A request reported by both Playwright and a worker's DevTools session within this time is one request. */
const TWIN_MS = 2_000;

/**
 * Record every request sent by a page, or by all pages of a context and its shared workers (which
 * Playwright does not report: their requests come from the watch launchBrowser arms, with the same fields).
 */
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
  /** Playwright's requests whose full headers are still awaited, and how to stop waiting. */
  const unanswered = new Map<RecordedRequest, () => void>();
  // Requests with no page frame, from Playwright or from a worker's session: a request both report (should
  // Playwright ever report shared workers' requests) is recorded once, the second report joining the first.
  const frameless = new WeakMap<RecordedRequest, { fromWorker: boolean; joined: boolean }>();
  const add = (entry: RecordedRequest, from?: { fromWorker: boolean }): RecordedRequest => {
    if (from) {
      const twin = entries.findLast((e) => {
        const other = frameless.get(e);
        return (
          other &&
          !other.joined &&
          other.fromWorker !== from.fromWorker &&
          e.method === entry.method &&
          e.url === entry.url &&
          e.postData === entry.postData &&
          Math.abs(e.time - entry.time) <= TWIN_MS
        );
      });
      if (twin) {
        frameless.get(twin)!.joined = true;
        return twin;
      }
      frameless.set(entry, { ...from, joined: false });
    }
    entries.push(entry);
    return entry;
  };

  target.on('request', (request: Request) => {
    const entry = add(
      {
        url: request.url(),
        method: request.method(),
        headers: request.headers(),
        postData: request.postData(),
        resourceType: request.resourceType(),
        isNavigation: request.isNavigationRequest(),
        time: Date.now(),
      },
      hasFrame(request) || request.serviceWorker() ? undefined : { fromWorker: false },
    );
    byRequest.set(request, entry);
    // headers() can omit headers added by the network stack; allHeaders() has them all. Playwright
    // reports a shared worker's script request but never its response, and its allHeaders() never
    // settles: the watch reports that response (Worker.scriptResponse below), which ends the wait.
    let answered!: () => void;
    const headers = request.allHeaders().then((h) => void (entry.headers = h));
    track(Promise.race([headers, new Promise<void>((r) => (answered = r))]).finally(() => unanswered.delete(entry)));
    unanswered.set(entry, answered);
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

  const context = 'newPage' in target ? target : target.context();
  const browser = context.browser();
  if (browser) {
    // Shared workers' requests (a context's log only), by DevTools request id (unique per renderer process).
    const byId = new Map<string, RecordedRequest>();
    SharedWorkerWatch.of(browser).listen(context, {
      bodies: context === target ? options.bodies : undefined,
      event(method, params) {
        if (method === 'Worker.scriptResponse') {
          // The worker's script, which Playwright reported as the page's request without its response.
          const { url, status, failure } = params as { url: string; status?: number; failure?: string };
          const script = [...unanswered.keys()].find((e) => e.url === url && e.status === undefined && !e.failure);
          if (!script) return;
          script.status = status;
          if (failure) script.failure = failure;
          script.responseTime = Date.now();
          unanswered.get(script)?.();
          return;
        }
        if (context !== target) return;
        const entry = byId.get(params.requestId as string) ?? byId.get(params.networkId as string);
        if (method === 'Network.requestWillBeSent') {
          const p = params as unknown as WillBeSent;
          if (p.redirectResponse && entry) {
            entry.status = p.redirectResponse.status;
            entry.responseTime = Date.now();
          }
          if (/^(data|blob):/.test(p.request.url)) return;
          const posted =
            p.request.postData ?? p.request.postDataEntries?.map((e) => Buffer.from(e.bytes ?? '', 'base64').toString()).join('');
          const next = add(
            {
              url: p.request.url,
              method: p.request.method,
              headers: lowerCased(p.request.headers),
              postData: posted ?? null,
              resourceType: (p.type ?? 'other').toLowerCase(),
              isNavigation: false,
              time: Date.now(),
            },
            { fromWorker: true },
          );
          byId.set(p.requestId, next);
        } else if (method === 'Network.requestWillBeSentExtraInfo' && entry) {
          entry.headers = { ...entry.headers, ...lowerCased(params.headers as Record<string, string>) };
        } else if (method === 'Network.responseReceived' && entry) {
          entry.status = (params.response as { status: number }).status;
          entry.responseTime = Date.now();
        } else if (method === 'Network.loadingFailed' && entry) {
          entry.failure = params.errorText as string;
        } else if (method === 'Fetch.requestPaused') {
          // The response, before the worker gets it: the request's headers as sent, and the body if wanted.
          const { request, body } = params as {
            request: { url: string; method: string; headers: Record<string, string>; postData?: string };
            body?: string;
          };
          if (entry) entry.headers = { ...lowerCased(request.headers), ...entry.headers };
          if (body === undefined) return;
          if (entry) entry.body ??= body;
          else log.addBody(request.method, request.url, request.postData, body);
        }
      },
    });
  }

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

/** Whether Playwright tied the request to a page's frame (not so for a service worker's, nor for a shared worker's). */
function hasFrame(request: Request): boolean {
  try {
    return !!request.frame();
  } catch {
    return false;
  }
}

/** The part of Network.requestWillBeSent the recorder reads. */
interface WillBeSent {
  requestId: string;
  type?: string;
  request: {
    url: string;
    method: string;
    headers: Record<string, string>;
    postData?: string;
    postDataEntries?: { bytes?: string }[];
  };
  redirectResponse?: { status: number };
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

/**
 * Console messages (and uncaught errors, as type 'pageerror') from a page, or from a whole context
 * with its shared workers (whose console Playwright does not report either).
 */
export function collectConsole(target: Page | BrowserContext): ConsoleEntry[] {
  const messages: ConsoleEntry[] = [];
  target.on('console', (msg) => messages.push({ type: msg.type(), text: msg.text(), url: msg.location().url }));
  const onError = (err: Error) => messages.push({ type: 'pageerror', text: String(err?.stack ?? err), url: '' });
  if ('newPage' in target) {
    target.on('weberror', (e) => onError(e.error()));
    const browser = target.browser();
    if (browser)
      SharedWorkerWatch.of(browser).listen(target, {
        event: (method, params, worker) => workerConsole(messages, method, params, worker),
      });
  } else {
    target.on('pageerror', onError);
  }
  return messages;
}

/** A console message, uncaught error or browser log entry of a shared worker, as collectConsole keeps them. */
function workerConsole(messages: ConsoleEntry[], method: string, params: Record<string, unknown>, worker: WorkerTarget) {
  type Remote = { value?: unknown; unserializableValue?: string; description?: string; type: string };
  if (method === 'Runtime.consoleAPICalled') {
    const { type, args, stackTrace } = params as { type: string; args: Remote[]; stackTrace?: { callFrames: { url: string }[] } };
    const text = args.map((a) => ('value' in a ? String(a.value) : (a.unserializableValue ?? a.description ?? a.type))).join(' ');
    messages.push({ type, text, url: stackTrace?.callFrames[0]?.url || worker.url });
  } else if (method === 'Runtime.exceptionThrown') {
    const { exceptionDetails } = params as { exceptionDetails: { text: string; exception?: Remote } };
    messages.push({ type: 'pageerror', text: exceptionDetails.exception?.description ?? exceptionDetails.text, url: '' });
  } else if (method === 'Log.entryAdded') {
    const { entry } = params as { entry: { level: string; text: string; url?: string } };
    messages.push({ type: entry.level === 'verbose' ? 'debug' : entry.level, text: entry.text, url: entry.url ?? worker.url });
  }
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
  // Shared workers run no init script, and Playwright does not report their console: only Chromium's report.
  const browser = context.browser();
  if (browser) {
    SharedWorkerWatch.of(browser).listen(context, {
      event(method, params, worker) {
        const messages: ConsoleEntry[] = [];
        workerConsole(messages, method, params, worker);
        for (const { text } of messages) {
          if (/Content Security Policy/i.test(text)) violations.push({ source: 'console', text, page: worker.url });
        }
      },
    });
  }
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

// The shared worker's side: one session engine for every page of the app, kept while any page lives
// and for `keepSessionMs` after the last one, so a reload or Back finds the session with no request
// to the identity service. A page is known to be gone by the Web Lock it holds while it lives, which
// the browser releases however the page ends (closed, navigated, crashed, discarded): no goodbye
// message is needed, and none is trusted.
import type { Locks } from '../browser/browser';
import { appNames } from '../browser/storage';
import { checkOptions, issuerOf, KEEP_SESSION_MS, type AuthOptions } from '../options';
import type { Network } from '../protocol/http';
import { createEngine, type PagePort } from '../session/engine';
import { parseRequest } from './messages';
import { openSignal, type Channel } from './signal';

/** The options a worker was named with (workerName); a TypeError for a name no page of ours gives. */
export function optionsOf(name: string): AuthOptions {
  let options: AuthOptions | undefined;
  try {
    options = name.startsWith('auth ') ? (JSON.parse(name.slice('auth '.length)) as AuthOptions) : undefined;
  } catch {
    // Not JSON: refused below, as any other name workerName does not give.
  }
  if (typeof options?.clientId !== 'string' || typeof issuerOf(options) !== 'string')
    throw new TypeError('auth worker: not named by workerName');
  checkOptions(options);
  return options;
}

/** The part of a SharedWorkerGlobalScope the host uses. */
export interface WorkerScope {
  name: string;
  addEventListener(type: 'connect', listener: (event: MessageEvent) => void): void;
}

export interface WorkerHostParts {
  scope: WorkerScope;
  locks: Locks;
  network: Network;
  now(): number;
  /** Opens the app's signal channel by its name (host/signal.ts); undefined where there are none. */
  channel(name: string): Channel | undefined;
}

/** Serves every page that connects to this worker from one engine. */
export function serveWorker({ scope, locks, network, now, channel }: WorkerHostParts) {
  const options = optionsOf(scope.name);
  const names = appNames(issuerOf(options), options.clientId);
  const keepMs = options.keepSessionMs ?? KEEP_SESSION_MS;
  // The worker's engine reaches every page itself: it only tells pages that have not joined (strangers).
  const { signal } = openSignal(channel(names.channel), names, () => {});
  const engine = createEngine({ options, network, now, signal });
  let forgetting: ReturnType<typeof setTimeout> | undefined;

  /** Once `page` has gone: after the last page, the session is kept `keepMs`, then forgotten. */
  function gone(close: () => void) {
    close();
    if (engine.pages() > 0) return;
    // No timer is pending: the page that went last came (connected) after the last one set.
    forgetting = setTimeout(engine.forget, keepMs);
  }

  scope.addEventListener('connect', (event) => {
    const port = event.ports[0] as PagePort;
    clearTimeout(forgetting);
    const close = engine.serve(port);
    // The page's first command names the lock it holds while it lives; the lock is granted here once it is gone.
    const watch = ({ data }: MessageEvent) => {
      const request = parseRequest(data);
      if (request?.type !== 'join') return;
      port.removeEventListener('message', watch);
      const page = (request.body as { page: string }).page;
      void locks.request(names.lock + page, async () => gone(close));
    };
    port.addEventListener('message', watch);
  });
  return engine;
}

// The page's first step into the session engine, taken the moment the page needs the session and
// while the page's client (client.ts, connect.ts) is still loading: the page's Web Lock is taken, the
// app's shared worker opened and the join posted. The worker answers into the port, which keeps the
// answer, and every notice after it, in order until connect.ts starts it: a signed-in page's session
// is on its way while the code that shows it loads.
import type { Browser, WorkerLike } from '../browser/browser';
import type { AppNames } from '../browser/storage';
import type { Body } from './messages';

/** The join openHost() posts, the port's first command: connect.ts waits for its answer. */
export const JOIN_ID = 0;

/** What openHost() holds open for connect.ts. */
export interface Opening {
  /** The page's id: its lock's name, which the engine waits on to know it is gone. */
  page: string;
  /** The app's shared worker, its join posted; undefined where none starts (no SharedWorker, a CSP refusing it). */
  worker?: WorkerLike;
  /** Settles if the worker reports an error (its script could not load or run), whenever it does. */
  failed: Promise<void>;
  /** Leaves: the page's lock released, the worker's port (if any, and if still open) closed. */
  close(): void;
}

/** Holds a lock named for this page until release(): the browser releases it when the page is gone. */
function holdPageLock(browser: Browser, name: string): Promise<() => void> {
  let release = () => {};
  const { locks } = browser;
  if (!locks) return Promise.resolve(release);
  return new Promise((granted) => {
    void locks.request(name, () => {
      granted(() => release());
      return new Promise<void>((resolve) => (release = resolve));
    });
  });
}

/** The shared worker, or undefined when it cannot start (no SharedWorker, a CSP refusing it, an error). */
function openWorker(browser: Browser, name: string): WorkerLike | undefined {
  try {
    return browser.sharedWorker(name);
  } catch {
    return undefined;
  }
}

/** Takes the page's lock, then opens the app's worker (named `workerName`) and posts the join to it. */
export async function openHost(browser: Browser, names: AppNames, workerName: string): Promise<Opening> {
  const page = crypto.randomUUID();
  const release = await holdPageLock(browser, names.lock + page);
  const worker = openWorker(browser, workerName);
  const failed = new Promise<void>((resolve) => worker?.addEventListener('error', () => resolve()));
  const join: Body<'join'> = { page };
  worker?.port.postMessage({ id: JOIN_ID, type: 'join', body: join });
  return {
    page,
    worker,
    failed,
    close() {
      release();
      worker?.port.close();
    },
  };
}

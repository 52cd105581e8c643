// The page's connection to the session engine: the app's shared worker where it starts, else an engine
// in this page (in-page.ts). The page's lock is held and the worker's join posted before this code has
// loaded (open.ts); here the port starts, and every command is answered or times out, so no view waits
// for ever on a worker that died.
import type { Browser } from '../browser/browser';
import type { AppNames } from '../browser/storage';
import type { AuthOptions } from '../options';
import { AuthError } from '../protocol/errors';
import type { Network } from '../protocol/http';
import type { Claims } from '../protocol/steps';
import type { Answer, Body, CommandType, Reply } from './messages';
import { JOIN_ID, type Opening } from './open';

/** The page's end of the engine: numbered commands, answered in turn; notices go to `notice`. */
export interface Connection<C extends Claims> {
  request<K extends CommandType>(type: K, body: Body<K>): Promise<Answer<C, K>>;
  /** Which host answers: the shared worker, or an engine in this page. */
  host: 'worker' | 'in-page';
  /** Leaves the engine: the page's lock is released, and an in-page engine stops. */
  close(): void;
}

export interface ConnectParts<C extends Claims> {
  options: AuthOptions;
  names: AppNames;
  browser: Browser;
  network: Network;
  /** How long one command may take: its requests to the identity service, a few in a row, each bounded. */
  timeoutMs: number;
  notice(reply: Extract<Reply<C>, { notice: string }>): void;
  /** The in-page host's module, loaded only where no shared worker starts. */
  inPage(): Promise<typeof import('./in-page')>;
  /** The page's lock and the worker, its join posted (open.ts). */
  opening: Promise<Opening>;
}

/** How many requests in a row a command may make (discovery, the code, userinfo) before it is late. */
const REQUESTS_PER_COMMAND = 4;

/**
 * A port's numbered requests and their answers; a command unanswered in `timeoutMs` is `timeout`. Ids
 * below `posted` were sent before the port started (open.ts's join): answer() waits for theirs.
 */
function portConnection<C extends Claims>(port: MessagePort, timeoutMs: number, notice: ConnectParts<C>['notice'], posted = 0) {
  let next = posted;
  let closed: AuthError | undefined;
  const waiting = new Map<number, (reply: Reply<C>) => void>();
  port.addEventListener('message', ({ data }: MessageEvent) => {
    const reply = data as Reply<C>;
    if ('notice' in reply) return notice(reply);
    waiting.get(reply.id)?.(reply);
  });
  port.start();

  function answer<K extends CommandType>(id: number): Promise<Answer<C, K>> {
    if (closed) return Promise.reject(closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle({ id, error: { code: 'timeout' } }), timeoutMs);
      function settle(reply: Reply<C>) {
        clearTimeout(timer);
        waiting.delete(id);
        if ('error' in reply) reject(new AuthError(reply.error.code, reply.error));
        else resolve((reply as { answer: Answer<C, K> }).answer);
      }
      waiting.set(id, settle);
    });
  }

  return {
    answer,
    request<K extends CommandType>(type: K, body: Body<K>): Promise<Answer<C, K>> {
      const id = next++;
      const answered = answer<K>(id);
      if (!closed) port.postMessage({ id, type, body });
      return answered;
    },
    /** Every command waiting, and every later one, fails with `error`: the host is gone. */
    fail(error: AuthError) {
      closed = error;
      for (const settle of [...waiting.values()]) settle({ id: -1, error: error.toJSON() });
    },
  };
}

/**
 * Connects this page to the app's engine and joins it; where the worker cannot start, or reports an
 * error before it answers, the engine starts in this page instead.
 */
export async function connect<C extends Claims>(
  parts: ConnectParts<C>,
): Promise<{ connection: Connection<C>; joined: Answer<C, 'join'> }> {
  const { options, names, browser, notice } = parts;
  const timeoutMs = parts.timeoutMs * REQUESTS_PER_COMMAND;
  const opened = await parts.opening;
  const { worker } = opened;
  if (worker) {
    const connection = portConnection<C>(worker.port, timeoutMs, notice, JOIN_ID + 1);
    // The worker's script could not load or run (a CSP, a network error): nothing it would answer is coming.
    let started = true;
    void opened.failed.then(() => {
      started = false;
      connection.fail(new AuthError('unreachable'));
    });
    const joined = await connection.answer<'join'>(JOIN_ID).catch((err: unknown) => {
      if (!started) return;
      // The engine answered, with a failure (the provider's metadata): this attempt holds nothing open.
      opened.close();
      throw err;
    });
    if (joined) {
      const close = () => {
        connection.fail(new AuthError('aborted'));
        opened.close();
      };
      return { connection: { request: connection.request, host: 'worker' as const, close }, joined };
    }
    worker.port.close();
  }
  const { startInPage } = await parts.inPage();
  const host = startInPage({ options, names, network: parts.network, now: browser.now, channel: browser.channel(names.channel) });
  const connection = portConnection<C>(host.port, timeoutMs, notice);
  const joined = await connection.request('join', { page: opened.page }).catch((err: unknown) => {
    opened.close();
    host.close();
    throw err;
  });
  const close = () => {
    connection.fail(new AuthError('aborted'));
    opened.close();
    host.close();
  };
  return { connection: { request: connection.request, host: 'in-page' as const, close }, joined };
}

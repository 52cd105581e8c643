// The engine's pages: the ports it serves, what it tells them, and the snapshot a page gets on joining.
// Each page's message is checked against the command table (host/messages.ts) and answered by its
// handler (commands.ts), or with its error as an AuthError's code and details, never its cause; a
// numbered message the table refuses is answered `invalid_response`.
import { parseRequest, requestId, type Reply, type SharedSession, type Transition, type WireError } from '../host/messages';
import { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import type { Claims } from '../protocol/steps';
import type { IdleState } from './idle';

/** One end of a MessagePort, as the engine uses it: a page's, or a test's. */
export interface PagePort {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  start?(): void;
}

/** A command's handler, as the pages call it: the checked body and the page that sent it. */
export type Handler = (body: unknown, from: PagePort) => Promise<unknown>;

/** An AuthError as it crosses the port: code and details, never the cause. */
export const toWire = (err: AuthError): WireError => err.toJSON();

/** The snapshot after `transition`: what a page that joins now is told. */
export function nextShared<C extends Claims>(shared: SharedSession<C>, transition: Transition<C>): SharedSession<C> {
  switch (transition.type) {
    case 'signed-in':
      return { status: 'signed-in', user: transition.user, expiresAt: transition.expiresAt, offline: false };
    case 'renewed':
      return shared.status === 'signed-in' ? { ...shared, expiresAt: transition.expiresAt, offline: false } : shared;
    case 'offline':
      return shared.status === 'signed-in' ? { ...shared, offline: true } : shared;
    case 'expired':
      return { status: 'expired', error: { ...transition.error, code: 'session_expired' } };
    case 'signed-out':
      return { status: 'signed-out' };
    case 'ending':
      return shared.status === 'signed-in' ? { ...shared, endsAt: transition.endsAt } : shared;
    case 'renew-failed':
      return shared;
  }
}

/** The pages one engine serves; see the file's head. */
export interface Pages<C extends Claims> {
  /** Tells every page (but `except`) a change of the session, and keeps the snapshot a joining page gets. */
  publish(transition: Transition<C>, except?: PagePort): void;
  /** Tells one page what is for it alone (a hidden frame to open). */
  tell(page: PagePort, message: Reply<C>): void;
  /** The page to ask for a hidden frame: the one that spoke last, else any; undefined with none. */
  pick(): PagePort | undefined;
  /** The idle countdown, to every page. */
  show(idle: IdleState): void;
  /** The session as a page joining now sees it. */
  snapshot(): SharedSession<C>;
  /** The session is forgotten without a word: no page is there to tell. */
  reset(): void;
  /** Serves one page over `port` with `handlers` until the returned close() (the page is gone). */
  serve(port: PagePort, handlers: Record<string, Handler>): () => void;
  /** How many pages it serves. */
  size(): number;
  /** Forgets every page (the engine destroyed). */
  clear(): void;
}

/** `report` is told a handler's bug (a thrown non-AuthError). */
export function createPages<C extends Claims>(report: (error: unknown) => void): Pages<C> {
  const pages = new Set<PagePort>();
  let shared: SharedSession<C> = { status: 'signed-out' };
  /** The page that spoke last (a command, the person's input, a wake): the likeliest to be open and running. */
  let latest: PagePort | undefined;

  /** Answers one page's message: a checked command gets its handler's answer or its error; anything else, nothing. */
  async function answer(page: PagePort, data: unknown, handlers: Record<string, Handler>) {
    const request = parseRequest(data);
    if (!request) {
      // Out of bounds (a callback's response over its cap) or not ours: refused, and said so when numbered.
      const id = requestId(data);
      if (id !== undefined) page.postMessage({ id, error: { code: 'invalid_response' } });
      return;
    }
    const { id, type, body } = request;
    latest = page;
    try {
      page.postMessage({ id, answer: await handlers[type](body, page) });
    } catch (err) {
      let error: AuthError;
      try {
        error = toAuthError(err);
      } catch (bug) {
        report(bug);
        error = new AuthError('invalid_response');
      }
      page.postMessage({ id, error: toWire(error) });
    }
  }

  return {
    publish(transition: Transition<C>, except?: PagePort) {
      shared = nextShared(shared, transition);
      for (const page of pages) if (page !== except) page.postMessage({ notice: 'transition', transition });
    },
    tell: (page: PagePort, message: Reply<C>) => page.postMessage(message),
    pick: () => (latest && pages.has(latest) ? latest : pages.values().next().value),
    show: (idle: IdleState) => pages.forEach((page) => page.postMessage({ notice: 'idle', idle })),
    snapshot: () => shared,
    reset: () => void (shared = { status: 'signed-out' }),
    serve(port: PagePort, handlers: Record<string, Handler>): () => void {
      const listener = (event: MessageEvent) => void answer(port, event.data, handlers);
      pages.add(port);
      port.addEventListener('message', listener);
      port.start?.();
      return () => {
        pages.delete(port);
        port.removeEventListener('message', listener);
      };
    },
    size: () => pages.size,
    clear: () => pages.clear(),
  };
}

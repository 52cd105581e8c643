// The page's client of the session engine, loaded once the page needs the session (a callback, a
// returning person, a sign-in or sign-out), never for a stranger's first paint: it connects (connect.ts),
// shows the shared session in this page's store, its changes as they come, and the idle countdown;
// forwards the page's events and the person's input; and makes auth.fetch, whose tokens it asks the
// engine for. The access token and DPoP key it receives stay in this module's closures.
import { DPoP, type Client as OAuthClient } from 'oauth4webapi';
import { listenPage } from '../browser/lifecycle';
import type { Browser } from '../browser/browser';
import type { AppStorage, AppNames } from '../browser/storage';
import type { AuthOptions } from '../options';
import { AuthError } from '../protocol/errors';
import type { Network } from '../protocol/http';
import type { Claims, Proof } from '../protocol/steps';
import type { IdleState } from '../session/idle';
import type { Session } from '../svelte/session';
import type { Events } from '../page/events';
import { createAuthFetch, type TokenSource } from '../page/fetch';
import { runFrame } from '../page/frame';
import { connect, type Connection } from './connect';
import type { Reply, SharedSession, Transition, WireError } from './messages';
import type { Opening } from './open';

import { stepUpRequest } from '../protocol/stepup';
import type { StepUpOptions } from '../protocol/scope';

export interface ClientParts<C extends Claims> {
  options: AuthOptions;
  names: AppNames;
  browser: Browser;
  network: Network;
  storage: AppStorage;
  state: Session<C>;
  events: Pick<Events, 'emit'>;
  showIdle(state: IdleState): void;
  inPage(): Promise<typeof import('./in-page')>;
  /** The page's lock and the worker, its join posted while this code loaded (open.ts). */
  opening: Promise<Opening>;
  /** The page joins to complete a callback: the session it finds is not shown meanwhile. */
  completing?: boolean;
}

/** The page's end of the session: what auth.ts uses once the page has joined the engine. */
export interface PageClient<C extends Claims = Claims> {
  /** A command to the engine, answered or failed with an AuthError (`timeout` when the engine is gone). */
  request: Connection<C>['request'];
  /** Which host answers: the shared worker, or an engine in this page. */
  host: Connection<C>['host'];
  /** A step-up value that is not valid is the caller's bug: a TypeError, before anything is sent. */
  checkAsk(ask: StepUpOptions): void;
  /** auth.fetch: the session's access token, to allowed origins only (page/fetch.ts). */
  fetch: typeof fetch;
  /** The page signs out: its requests are aborted at once; the engine's answer follows. */
  signedOut(): void;
  /** Leaves the engine: the page's requests are aborted, its listeners removed, its lock released. */
  destroy(): void;
}

const fromWire = (error: WireError) => new AuthError(error.code, error);

/** Connects the page to the engine and shows its session here; see the file's head. */
export async function attachClient<C extends Claims>(parts: ClientParts<C>): Promise<PageClient<C>> {
  const { options, browser, storage, state, events } = parts;
  const client: OAuthClient = { client_id: options.clientId };
  // Aborted when the session ends here: requests made with its tokens die with it.
  let life = new AbortController();
  let proof: { keys: CryptoKeyPair; handle: NonNullable<Proof> } | undefined;

  function ended() {
    life.abort();
    life = new AbortController();
    proof = undefined;
  }

  /** One change of the shared session, as this page's store shows it. */
  function apply(transition: Transition<C>) {
    switch (transition.type) {
      case 'signed-in':
        ended();
        storage.writeHint('had-session');
        return state.signedIn(transition.user, transition.expiresAt);
      case 'renewed':
        return state.renewed(transition.expiresAt);
      case 'offline':
        return state.offline();
      case 'renew-failed':
        return events.emit('renew-failed', { error: fromWire(transition.error) });
      case 'ending':
        return state.ending(transition.endsAt);
      case 'expired':
        ended();
        return state.expired(transition.error && fromWire(transition.error));
      case 'signed-out':
        ended();
        storage.clearTab();
        storage.writeHint('signed-out');
        state.signedOut(transition.reason);
        // The idle sign-out's notice; the next sign-in asks for the person (prompt=login), as the
        // provider's own session may outlive this one.
        if (transition.reason === 'idle') state.notice('idle_timeout');
    }
  }

  // While the idle warning shows, only the person's answer (auth.stayActive: its button's click, Escape)
  // keeps the session: input that dismissed it on pointerdown let the release land on what lay beneath.
  let warned = false;
  function showIdle(idle: IdleState) {
    warned = idle.warning;
    parts.showIdle(idle);
  }

  function notice(reply: Extract<Reply<C>, { notice: string }>) {
    if (reply.notice === 'idle') showIdle(reply.idle);
    else if (reply.notice === 'frame')
      void runFrame(browser, parts.names, reply, timeoutMs)
        .then((answer) => request('framed', answer))
        .catch(() => {});
    else apply(reply.transition);
  }

  const timeoutMs = options.timeoutMs ?? 15_000;
  const { connection, joined } = await connect<C>({ ...parts, timeoutMs, notice });
  // A page completing a callback shows the session its code begins, not the one it may replace.
  if (!parts.completing) showSnapshot(joined.session);
  showIdle(joined.idle);

  /** The session the page found on joining. */
  function showSnapshot(session: SharedSession<C>) {
    if (session.status === 'signed-in') {
      state.signedIn(session.user, session.expiresAt);
      if (session.offline) state.offline();
      if (session.endsAt) state.ending(session.endsAt);
    } else if (session.status === 'expired') state.expired(fromWire(session.error));
  }

  const request = connection.request;
  const tokens: TokenSource = {
    async token(origin) {
      const { accessToken, api, keys } = await request('token', { origin });
      // One proof handle per key pair, so the nonces a server hands out are kept (RFC 9449 §8).
      if (keys && !proof) proof = { keys, handle: DPoP(client, keys) };
      return { accessToken, api, dpop: keys && proof?.handle };
    },
    renew: (refused) => request('renew', { refused }),
    forget: (origin, accessToken) => void request('forget', { origin, accessToken }).catch(() => {}),
    end: (refused) => void request('end', { refused }).catch(() => {}),
    offline: () => state.session.current.offline,
    signal: () => life.signal,
  };
  const allowed = new Set(joined.allowed.map((url) => new URL(url).origin));
  const fetch = createAuthFetch({
    ...options,
    network: parts.network,
    tokens,
    allowed,
    scope: joined.scope,
    base: browser.url,
    timeoutMs,
    maxBytes: options.maxResponseBytes,
  });

  const quiet = () => {};
  const unlisten = listenPage({
    port: browser,
    wake: () => void request('wake', {}).catch(quiet),
    returned: () => state.redirectAbandoned(),
    active: options.idle && (() => void (warned || request('active', {}).catch(quiet))),
  });

  const resources = Object.values(options.apis ?? {}).map((api) => api.resource);
  return {
    request,
    host: connection.host,
    checkAsk: (ask) => void stepUpRequest(joined.scope, ask, resources),
    fetch,
    signedOut: ended,
    destroy() {
      ended();
      unlisten();
      connection.close();
    },
  };
}

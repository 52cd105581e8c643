// The session engine: the one owner of an app's session in the browser. It holds the person, the
// refresh token and every token (tokens.ts), the DPoP key pair, the provider's metadata and the idle
// deadline; it makes every request to the identity service; and it answers its pages' commands over
// MessagePorts (host/messages.ts), telling every page each change of the session. It runs in one
// shared worker for all the app's pages (host/worker.ts), or in a page for that page alone where no
// shared worker can start (host/in-page.ts): the same code in both. A refresh token never leaves it.
import { parseRequest, type Answer, type Body, type CommandType } from '../host/messages';
import type { SharedSession, Transition, WireError } from '../host/messages';
import { discovers, serverOf, type AuthOptions } from '../options';
import { authorizationRequest } from '../protocol/authorize';
import { checkShape } from '../protocol/callback';
import { discoverServer } from '../protocol/discovery';
import { createKeys } from '../protocol/dpop';
import { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import type { Network } from '../protocol/http';
import { endSessionRequest, revokeAll } from '../protocol/signout';
import { completeStepUp, stepUpRequest } from '../protocol/stepup';
import { completeSignIn, refreshTokens, type Claims } from '../protocol/steps';
import { createIdleDeadline, type IdleState } from './idle';
import { createVault, type Held } from './tokens';

/** One end of a MessagePort, as the engine uses it: a page's, or a test's. */
export interface PagePort {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  start?(): void;
}

/** What the engine tells the app's other hosts, token-free (host/signal.ts): a session began or ended, the person is here. */
export interface Signal {
  signedIn(sub: string): void;
  signedOut(): void;
  active(): void;
}

/** What another host of the app said (host/signal.ts). */
export type Heard = { type: 'signed-out' } | { type: 'signed-in'; sub: string } | { type: 'active' };

export interface EngineParts {
  options: AuthOptions;
  network: Network;
  now(): number;
  /** The app's other hosts (in-page engines of other tabs); none in tests. */
  signal?: Signal;
  /** A bug in a handler (a thrown non-AuthError): reported as the host reports uncaught errors. */
  report?(error: unknown): void;
}

/** An AuthError as it crosses the port: code and details, never the cause. */
export const toWire = (err: AuthError): WireError => err.toJSON();

/** The handlers of every command, by type: a command of the table without one does not compile. */
type Handlers<C extends Claims> = { [K in CommandType]: (body: Body<K>, from: PagePort) => Promise<Answer<C, K>> };

export function createEngine<C extends Claims>({ options, network, now, signal, report = console.error }: EngineParts) {
  const server = serverOf(options, network);
  const pages = new Set<PagePort>();
  let user: C | undefined;
  let shared: SharedSession<C> = { status: 'signed-out' };

  /** Tells every page (but `except`) a change of the session, and keeps the snapshot a joining page gets. */
  function publish(transition: Transition<C>, except?: PagePort) {
    shared = nextShared(shared, transition);
    for (const page of pages) if (page !== except) page.postMessage({ notice: 'transition', transition });
  }

  const vault = createVault({
    client: server.client,
    now,
    scope: server.scope,
    apis: options.apis,
    grant: async () => (current, params, abort) => refreshTokens(server, vault.dpop(), current, now(), abort, params),
    renewed: (tokens) => publish({ type: 'renewed', expiresAt: tokens.expiresAt }),
    offline: () => publish({ type: 'offline' }),
    ended: (error) => {
      user = undefined;
      idle?.stop();
      publish({ type: 'expired', error: error && toWire(error) });
    },
    retrying: (error) => publish({ type: 'renew-failed', error: toWire(error) }),
  });

  const idle =
    options.idle &&
    createIdleDeadline({
      options: options.idle,
      now,
      show: (state: IdleState) => pages.forEach((page) => page.postMessage({ notice: 'idle', idle: state })),
      end: () => signOut('idle'),
    });

  /** The provider's metadata, read once when the options lack an endpoint; a failure is read again next time. */
  let metadata: Promise<void> | undefined;
  const ready = () =>
    (metadata ??= discovers(options)
      ? discoverServer(server.as, { network, timeoutMs: server.timeoutMs }).catch((err: unknown) => {
          metadata = undefined;
          throw err;
        })
      : Promise.resolve());

  /** A session begins: a sign-in, or another person's sign-in replacing the last one (revoked). */
  function begin(held: Held, person: C) {
    const before = vault.drop();
    if (before && user?.sub !== person.sub) revokeAll(server, before);
    vault.hold(held);
    user = person;
    idle?.begin();
    publish({ type: 'signed-in', user: person, expiresAt: held.tokens.expiresAt });
    signal?.signedIn(person.sub);
  }

  /** Ends the session in every page and revokes what it held, live or ended on its own (RFC 7009). */
  function signOut(reason: 'user' | 'idle' | 'other-tab', from?: PagePort) {
    const tokens = vault.drop();
    user = undefined;
    idle?.stop();
    if (tokens) revokeAll(server, tokens);
    // The page that signed out has said so itself; the others learn it from here.
    publish({ type: 'signed-out', reason: reason === 'user' ? 'other-tab' : reason }, from);
    if (reason !== 'other-tab') signal?.signedOut();
    return tokens;
  }

  const handlers: Handlers<C> = {
    async join() {
      await ready();
      const allowed = [server.as.userinfo_endpoint!, ...(options.apiOrigins ?? []), ...Object.keys(options.apis ?? {})];
      return { session: shared, idle: idle?.state() ?? { warning: false }, allowed, scope: server.scope };
    },
    async authorize({ returnTo, prompt, ask }) {
      await ready();
      // What a step-up added to the session, and for which API, stays asked for by later sign-ins.
      const scope = vault.scope();
      const apis = vault.held()?.added;
      const asked = stepUpRequest(scope, ask, server.resources, apis);
      // A step-up names the person it is for, for the engine that takes the callback (in-page, a new one
      // that knows no one); a plain sign-in keeps asking for what step-ups added, for anyone.
      const stepUp = asked
        ? { ...asked, ...(user && { sub: user.sub }) }
        : scope === server.scope && !apis
          ? undefined
          : { scope, apis };
      return authorizationRequest(server, { returnTo, prompt, stepUp, hints: ask, now: now() });
    },
    async complete({ response, pending }) {
      await ready();
      const callback = { params: new URLSearchParams(response), inFragment: false };
      checkShape(callback);
      const life = vault.signal();
      // A session's key stays its key (a step-up); a new session gets a new one (RFC 9449 §2).
      const keys = options.dpop ? (vault.keys() ?? (await createKeys())) : undefined;
      if (keys) vault.bind(keys);
      const finish = pending.stepUp ? completeStepUp : completeSignIn;
      const { tokens, user: person } = await finish<C>(server, vault.dpop(), callback, pending, now(), life);
      // A step-up is the same person asking for more: another account's answer changes nothing, and
      // what it was given is revoked.
      const stepped = pending.stepUp?.sub;
      if (stepped !== undefined && person.sub !== stepped) {
        revokeAll(server, tokens);
        throw new AuthError('account_changed');
      }
      const { stepUp } = pending;
      begin({ tokens, scope: stepUp?.scope ?? server.scope, added: stepUp?.apis, keys }, person);
      return { returnTo: pending.returnTo };
    },
    async signOut(_body, from) {
      await ready().catch(() => {});
      const tokens = signOut('user', from);
      return { endSession: endSessionRequest(server, tokens?.idToken, options.endSessionIdTokenHint) };
    },
    async token({ origin }) {
      const expired = () => now() >= (vault.tokens()?.expiresAt ?? Infinity);
      // Timers stall while a laptop sleeps: renewed first, or, offline, by a renewal already under way.
      if (expired()) await (vault.offline() ? vault.renewing() : vault.renew());
      if (expired()) throw new AuthError('unreachable');
      const current = vault.tokens();
      if (!current) throw new AuthError('unauthenticated');
      const api = await vault.apiToken(origin);
      return { accessToken: api ?? current.accessToken, api: api !== undefined, keys: vault.keys() };
    },
    async renew({ refused }) {
      if (vault.tokens() && vault.tokens()!.accessToken !== refused) return true;
      return vault.renew();
    },
    async forget({ origin, accessToken }) {
      vault.forgetApiToken(origin, accessToken);
      return null;
    },
    async end({ refused }) {
      if (vault.tokens()?.accessToken === refused) vault.end();
      return null;
    },
    async active() {
      idle?.active();
      if (user) signal?.active();
      return null;
    },
    async wake() {
      vault.checkDue();
      idle?.check();
      return null;
    },
  };

  /** Answers one page's message: a checked command gets its handler's answer or its error; anything else, nothing. */
  async function answer(page: PagePort, data: unknown) {
    const request = parseRequest(data);
    if (!request) return;
    const { id, type, body } = request;
    try {
      const handler = handlers[type] as (body: unknown, from: PagePort) => Promise<unknown>;
      page.postMessage({ id, answer: await handler(body, page) });
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
    /** Serves one page over `port` until the returned close() (the page is gone). */
    serve(port: PagePort): () => void {
      const listener = (event: MessageEvent) => void answer(port, event.data);
      pages.add(port);
      port.addEventListener('message', listener);
      port.start?.();
      return () => {
        pages.delete(port);
        port.removeEventListener('message', listener);
      };
    },
    /** How many pages it serves: the worker keeps the session while there is one (host/worker.ts). */
    pages: () => pages.size,
    /** Drops the session without a word to the identity service: no page has been open for `keepSessionMs`. */
    forget() {
      vault.drop();
      user = undefined;
      idle?.stop();
      shared = { status: 'signed-out' };
    },
    /** Another host of the app (another tab's in-page engine) said the session ended, or another person began one. */
    heard(message: Heard) {
      // A session that ended on its own ends too: its page shows the sign-out, what it held is revoked.
      if (message.type === 'signed-out') {
        if (shared.status !== 'signed-out') signOut('other-tab');
      } else if (!user) return;
      else if (message.type === 'active') idle?.active();
      else if (message.sub !== user.sub) signOut('other-tab');
    },
    /** Drops everything, timers included (the test kit, an instance destroyed). */
    destroy() {
      vault.drop();
      idle?.stop();
      pages.clear();
    },
  };
}

/** The snapshot after `transition`: what a page that joins now is told. */
function nextShared<C extends Claims>(shared: SharedSession<C>, transition: Transition<C>): SharedSession<C> {
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
    case 'renew-failed':
      return shared;
  }
}

export type Engine = ReturnType<typeof createEngine>;

// One session per browser, in memory only: the app's tabs share it over a BroadcastChannel. A starting
// tab asks the others and adopts their session instead of a round trip to the identity service; the
// tab holding the session's Web Lock renews for all (one refresh token per browser, so rotation never
// invalidates another tab's); sign-out reaches every tab. Tokens and keys travel only between the
// origin's live tabs, never through storage. Loaded after the first paint: nothing here is on the sign-in path.
import * as oauth from 'oauth4webapi';
import { AuthError, toAuthError, type AuthErrorCode } from './errors';
import type { Core } from './core';
import { exchange } from './exchange';
import type { BrowserPort, Locks } from './port';
import { readHint } from './storage';
import { parseMessage, type Held, type Message, type Shared } from './channel';
import type { Claims, ResourceParams, Server, TokenSet } from './protocol';
import { refreshTokens } from './refresh';

export type Channel = Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'removeEventListener'>;

export interface TabsParts<C extends Claims> {
  channel?: Channel;
  locks?: Locks;
  /** Tokens of this tab are DPoP-bound: a session without keys cannot be adopted, nor keys without DPoP. */
  dpop: boolean;
  /** How long a follower waits for the lock holder's renewal. */
  timeoutMs: number;
  /** This tab's session while it is signed in. */
  held(): Held<C> | undefined;
  /** This tab shows no session, so a sign-in in another tab signs it in. */
  waiting(): boolean;
  adopt(session: Held<C>): void;
  /** Another tab renewed the tokens of this session. */
  renewed(tokens: TokenSet): void;
  /** Another tab's grant for an API (RFC 8707 §2.2) rotated the session's refresh token. */
  rotated(refreshToken: string): void;
  /** A grant for an API, asked for by another tab: made in turn with renewals, by the lock holder. */
  exchange(extra: ResourceParams): Promise<TokenSet>;
  /** The lock holder could not renew: the session ends here too. */
  ended(err: AuthError): void;
  /** Another tab signed out; `revoke` when the tokens here are not the ones that tab revoked. */
  signedOut(revoke: boolean): void;
  /** Renews now (single flight), for a follower whose token was refused. */
  renew(): void;
  /** The real refresh-token grant (RFC 6749 §6), which only the lock holder makes. */
  refresh(current: TokenSet, signal: AbortSignal, extra?: ResourceParams): Promise<TokenSet>;
  /** Renews if it is due: the tab that just took the lock may be taking over from one that closed. */
  checkDue(): void;
}

const LOCK = 'auth:session:';
/** How long a starting tab waits for the lock holder's answer before it restores on its own. */
export const ASK_MS = 500;

/** A grant's failure as a code for the asking tab; the grant lacking a scope needs the person (RFC 6749 §5.2). */
function exchangeError(err: unknown): AuthErrorCode {
  if (err instanceof oauth.ResponseBodyError && err.error === 'invalid_scope') return 'interaction_required';
  try {
    return toAuthError(err).code;
  } catch {
    return 'invalid_response';
  }
}

const transient = (err: unknown) => ['timeout', 'unreachable', 'aborted'].includes(toAuthError(err).code);

export function createTabs<C extends Claims>(parts: TabsParts<C>) {
  const { channel, locks } = parts;
  let id: string | undefined;
  let leading = false;
  // Leaves the lock's queue, or releases the lock when this tab holds it.
  let membership: AbortController | undefined;
  const asks = new Map<string, (adopted: boolean) => void>();
  /** What this tab waits for from the lock holder: renewals (no `extra`) and grants for APIs, by request id. */
  const waiting = new Map<string, { extra?: ResourceParams; settle(tokens?: TokenSet, err?: unknown): void; lead(): void }>();
  const settleAll = (pick: (extra?: ResourceParams) => boolean, tokens?: TokenSet, err?: unknown) => {
    for (const waiter of [...waiting.values()]) if (pick(waiter.extra)) waiter.settle(tokens, err);
  };

  const post = (message: Message<C>) => channel?.postMessage(message);

  function share(to?: string) {
    const held = parts.held();
    if (id && held) post({ type: 'session', to, session: { ...held, id } });
  }

  function leave() {
    membership?.abort();
    membership = undefined;
    leading = false;
    id = undefined;
  }

  /** Joins session `next`: queues for its lock; the holder renews for every tab and answers new tabs. */
  function join(next: string) {
    leave();
    id = next;
    const member = (membership = new AbortController());
    if (!locks) {
      leading = true;
      return;
    }
    locks
      .request(LOCK + next, { signal: member.signal }, () => {
        leading = true;
        for (const waiter of [...waiting.values()]) waiter.lead();
        parts.checkDue();
        return new Promise<void>((release) => member.signal.addEventListener('abort', () => release()));
      })
      // Left the queue before the lock came: nothing to do.
      .catch(() => {});
  }

  function adopt(session: Shared<C>) {
    parts.adopt(session);
    join(session.id);
  }

  function onMessage({ data }: MessageEvent) {
    const message = parseMessage<C>(data, parts.dpop);
    if (!message) return;
    switch (message.type) {
      case 'ask':
        // Only the lock holder answers: its tokens are the newest.
        if (leading) share(message.from);
        return;
      case 'session': {
        // An answer to this tab's question, or a sign-in elsewhere that a tab without a session follows,
        // as does a tab of the same person (a step-up's wider grant replaces the session everywhere).
        const asked = message.to === undefined ? undefined : asks.get(message.to);
        const follows = parts.waiting() || parts.held()?.user.sub === message.session.user.sub;
        if (asked || (message.to === undefined && follows)) adopt(message.session);
        asked?.(true);
        return;
      }
      case 'renew': {
        const current = parts.held()?.tokens;
        if (message.id !== id || !leading || !current) return;
        // Renewed already: the follower only missed it. Otherwise renew now, once for every tab.
        if (current.expiresAt > message.expiresAt) post({ type: 'renewed', id, tokens: current });
        else parts.renew();
        return;
      }
      case 'renewed': {
        const current = parts.held()?.tokens;
        if (message.id !== id || !current || message.tokens.expiresAt <= current.expiresAt) return;
        const renewing = [...waiting.values()].some((waiter) => !waiter.extra);
        if (renewing) settleAll((extra) => !extra, message.tokens);
        else parts.renewed(message.tokens);
        return;
      }
      case 'exchange': {
        if (message.id !== id || !leading) return;
        const { from, extra } = message;
        const answer = (reply: { tokens?: TokenSet; error?: AuthErrorCode }) =>
          message.id === id && post({ type: 'exchanged', id: message.id, to: from, ...reply });
        parts.exchange(extra).then(
          (tokens) => {
            if (tokens.refreshToken && message.id === id) post({ type: 'rotated', id, refreshToken: tokens.refreshToken });
            answer({ tokens });
          },
          (err: unknown) => answer({ error: exchangeError(err) }),
        );
        return;
      }
      case 'exchanged': {
        const waiter = message.id === id ? waiting.get(message.to) : undefined;
        const scope = waiter?.extra && 'scope' in waiter.extra ? { scope: waiter.extra.scope } : {};
        waiter?.settle(message.tokens, message.error && new AuthError(message.error, scope));
        return;
      }
      case 'rotated':
        if (message.id === id) parts.rotated(message.refreshToken);
        return;
      case 'ended':
        if (message.id !== id) return;
        leave();
        if (waiting.size) settleAll(() => true, undefined, new AuthError('invalid_grant'));
        else parts.ended(new AuthError('session_expired'));
        return;
      case 'signed-out': {
        const mine = id !== undefined && message.id === id;
        leave();
        parts.signedOut(!mine);
      }
    }
  }
  channel?.addEventListener('message', onMessage);

  /** The lock holder makes the grant and tells the others what changed. */
  async function own(current: TokenSet, signal: AbortSignal, extra?: ResourceParams): Promise<TokenSet> {
    const session = id;
    const mine = () => session !== undefined && session === id;
    try {
      const next = await parts.refresh(current, signal, extra);
      if (mine() && !extra) post({ type: 'renewed', id: session!, tokens: next });
      if (mine() && extra && next.refreshToken) post({ type: 'rotated', id: session!, refreshToken: next.refreshToken });
      return next;
    } catch (err) {
      if (mine() && !extra && !transient(err)) post({ type: 'ended', id: session! });
      throw err;
    }
  }

  /** A follower asks the lock holder and waits, bounded; if the holder goes, this tab may take over. */
  function follow(current: TokenSet, signal: AbortSignal, extra?: ResourceParams): Promise<TokenSet> {
    const from = oauth.generateRandomState();
    return new Promise<TokenSet>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
        waiting.delete(from);
      };
      const timer = setTimeout(() => settle(undefined, new AuthError('timeout')), parts.timeoutMs);
      const stop = () => settle(undefined, new AuthError('aborted'));
      function settle(tokens?: TokenSet, err?: unknown) {
        done();
        if (tokens) resolve(tokens);
        else reject(err);
      }
      // The holder closed mid-grant and this tab took the lock: it makes the grant itself.
      const lead = () => {
        done();
        own(current, signal, extra).then(resolve, reject);
      };
      waiting.set(from, { extra, settle, lead });
      signal.addEventListener('abort', stop);
      post(extra ? { type: 'exchange', id: id!, from, extra } : { type: 'renew', id: id!, expiresAt: current.expiresAt });
    });
  }

  /** Every refresh-token grant of the session: made by the lock holder, so one refresh token serves every tab. */
  const refresh = (current: TokenSet, signal: AbortSignal, extra?: ResourceParams) =>
    leading || !id ? own(current, signal, extra) : follow(current, signal, extra);

  return {
    /**
     * Asks the other tabs for their session and adopts it; false at once when no tab holds a session's
     * lock, else after ASK_MS without an answer.
     */
    ask(): Promise<boolean> {
      if (!channel) return Promise.resolve(false);
      const from = oauth.generateRandomState();
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), ASK_MS);
        function done(adopted: boolean) {
          clearTimeout(timer);
          asks.delete(from);
          resolve(adopted);
        }
        asks.set(from, done);
        post({ type: 'ask', from });
        // Asked at once, checked meanwhile: when no tab holds a session's lock, nobody will answer.
        void locks?.query().then(({ held }) => {
          if (asks.has(from) && !held?.some((lock) => lock.name?.startsWith(LOCK))) done(false);
        });
      });
    },
    /** This tab signed in: a new session for the browser, and the waiting tabs sign in with it. */
    signedIn() {
      join(oauth.generateRandomState());
      share();
    },
    /** This tab signed out: every tab of the session signs out without revoking again. */
    signedOut() {
      post({ type: 'signed-out', id });
      leave();
    },
    refresh,
    destroy() {
      channel?.removeEventListener('message', onMessage);
      settleAll(() => true, undefined, new AuthError('aborted'));
      leave();
    },
  };
}

export type Tabs = ReturnType<typeof createTabs>;

/** What createAuth hands over for the tabs to work on: its port, server, session policy and keys. */
export interface Instance<C extends Claims> {
  port: BrowserPort;
  dpop: boolean;
  server: () => Server;
  core: Core<C>;
  useKeys(keys: CryptoKeyPair): void;
  /** Signs this tab out after another did; `revoke` as in TabsParts. */
  signedOut(revoke: boolean): void;
}

/**
 * The page's events that keep the session right: timers stall while a laptop sleeps (visibility,
 * online), and a page restored from the back/forward cache may show a redirect that never happened or
 * a person another tab signed out. Returns their removal.
 */
function listen<C extends Claims>({ port, core, signedOut }: Instance<C>): () => void {
  const { renewal, state } = core;
  const checkDue = () => void renewal.checkDue();
  const removers = [
    port.listen('visibilitychange', checkDue),
    port.listen('online', checkDue),
    port.listen('pageshow', (event) => {
      if (!(event as PageTransitionEvent).persisted) return checkDue();
      // Back from the identity service: the redirect did not happen here.
      state.redirectAbandoned();
      // Restored after another tab signed out: show nothing of the person.
      if (renewal.current() && readHint(port) !== 'had-session') signedOut(true);
      else checkDue();
    }),
  ];
  return () => removers.forEach((remove) => remove());
}

/**
 * createTabs wired to an auth instance, with the page's events: kept here, off the sign-in path,
 * rather than in auth.ts.
 */
export function connectTabs<C extends Claims>(instance: Instance<C>): Tabs {
  const { port, dpop, server, core, useKeys, signedOut } = instance;
  const { renewal, state } = core;
  const unlisten = listen(instance);
  const tabs = createTabs<C>({
    channel: port.channel,
    locks: port.locks,
    dpop,
    timeoutMs: server().timeoutMs,
    held() {
      const tokens = renewal.current();
      const { user } = state.session.current;
      return tokens && user ? { tokens, user, keys: server().keys } : undefined;
    },
    waiting: () => ['signed-out', 'expired'].includes(state.session.current.status),
    adopt(session) {
      if (session.keys) useKeys(session.keys);
      core.signedIn(session.tokens, session.user);
    },
    renewed(tokens) {
      renewal.adopt(tokens);
      state.renewed(tokens.expiresAt);
    },
    rotated(refreshToken) {
      const tokens = renewal.current();
      if (tokens) tokens.refreshToken = refreshToken;
    },
    exchange: (extra) =>
      exchange(renewal, async (current, signal) => {
        const result = await refreshTokens(server(), current, port.now(), signal, extra);
        return { result, refreshToken: result.refreshToken };
      }),
    ended: renewal.expire,
    signedOut,
    renew: () => void renewal.renew(false),
    refresh: (current, signal, extra) => refreshTokens(server(), current, port.now(), signal, extra),
    checkDue: () => void renewal.checkDue(),
  });
  return {
    ...tabs,
    destroy() {
      unlisten();
      tabs.destroy();
    },
  };
}

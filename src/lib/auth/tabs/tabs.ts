// One session per browser, in memory only: the app's tabs relay it over a BroadcastChannel. A starting
// tab asks the others and adopts their session instead of a round trip to the identity service; the
// tab holding the session's Web Lock (the leader) makes every refresh-token grant for all, so one
// refresh token serves every tab and rotation never spends another tab's; sign-out reaches every tab.
// Each tab keeps its tokens in its own vault (vault.ts); the relay only carries what changes between
// them, for its own app (storage.ts `appNames`) and the session's person. Loaded after the first paint.
import * as oauth from 'oauth4webapi';
import { parseMessage, type Body, type Shared } from './channel';
import { AuthError, type AuthErrorCode } from '../protocol/errors';
import { failureCode, recentGrants } from './grants';
import type { Locks } from '../browser/port';
import type { Claims, ResourceParams, TokenSet } from '../protocol/steps';
import type { Session } from '../svelte/session';
import type { AppNames } from '../browser/storage';
import { classify, isRenewal } from '../session/outcome';
import type { Grant, Held, Vault } from '../session/tokens';

export type Channel = Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'removeEventListener'>;

export interface RelayParts<C extends Claims> {
  channel?: Channel;
  locks?: Locks;
  names: AppNames;
  vault: Vault;
  /** The session a view reads: whose it is, and whether this tab shows none. */
  state: Session<C>;
  /** Makes `held` this tab's session (core.ts). */
  signedIn(held: Held, user: C): void;
  /** The refresh-token grant at the token endpoint, which only the leader makes. */
  endpoint: Grant;
  /** Whether another tab may have this grant made for it: only what this instance asks for its own APIs. */
  grantable(params: ResourceParams): boolean;
  /** Another tab of this session signed out: so does this one, without revoking again. */
  signedOut(): void;
  /** Tokens are DPoP-bound: a session without keys cannot be adopted, nor keys without DPoP. */
  dpop: boolean;
  /** How long a follower waits for the leader's grant. */
  timeoutMs: number;
  now(): number;
}

/** How long a starting tab waits for the leader's answer before it restores on its own. */
export const ASK_MS = 500;
/** A renewal, or a grant for one API, that other tabs ask for is made at most this often: a flood of messages costs one grant. */
export const RENEW_ASKED_MS = 5_000;

interface Waiter {
  params?: ResourceParams;
  settle(tokens?: TokenSet, err?: unknown): void;
  /** This tab took the lock while waiting: it makes the grant itself. */
  lead(): void;
}

export function createRelay<C extends Claims>(parts: RelayParts<C>) {
  const { channel, locks, names, vault, state } = parts;
  let id: string | undefined;
  let leading = false;
  // Leaves the lock's queue, or releases the lock when this tab holds it.
  let membership: AbortController | undefined;
  let renewAskedAt = -Infinity;
  const asks = new Map<string, (adopted: boolean) => void>();
  const grants = recentGrants(vault, parts.now, RENEW_ASKED_MS);
  /** The grants this tab waits for from the leader, by request id. */
  const waiting = new Map<string, Waiter>();

  const post = (message: Body<C>) => channel?.postMessage({ ...message, app: names.app });
  const person = () => state.session.current.user?.sub;

  function share(to?: string) {
    const held = vault.held();
    const user = state.session.current.user;
    if (id && held && user) post({ type: 'offer', to, session: { ...held, user, id } });
  }

  function leave() {
    grants.clear();
    membership?.abort();
    membership = undefined;
    leading = false;
    id = undefined;
  }

  /**
   * Joins session `next`: queues for its lock; the leader grants for every tab and answers new tabs.
   * `leads` runs once this tab holds the lock.
   */
  function join(next: string, leads?: () => void) {
    leave();
    id = next;
    const member = (membership = new AbortController());
    // A tab whose session ends (expiry, a refused token, another session) leaves it, and its lock goes
    // to a tab that still has the session.
    vault.signal().addEventListener('abort', () => member === membership && leave(), { once: true });
    if (!locks) {
      leading = true;
      return leads?.();
    }
    locks
      .request(names.lock + next, { signal: member.signal }, () => {
        leading = true;
        for (const waiter of [...waiting.values()]) waiter.lead();
        vault.checkDue();
        leads?.();
        return new Promise<void>((release) => member.signal.addEventListener('abort', () => release()));
      })
      // Left the queue before the lock came: nothing to do.
      .catch(() => {});
  }

  function adopt({ id: next, user, ...held }: Shared<C>) {
    parts.signedIn(held, user);
    join(next);
  }

  function onMessage({ data }: MessageEvent) {
    const message = parseMessage<C>(data, { app: names.app, dpop: parts.dpop, now: parts.now() });
    if (!message) return;
    // About this tab's session, and (where tokens travel) for its person.
    const ours = id !== undefined && 'id' in message && message.id === id;
    const forPerson = ours && 'sub' in message && message.sub === person();
    switch (message.type) {
      case 'ask':
        // Only the leader answers: its tokens are the newest.
        if (leading) share(message.from);
        return;
      case 'offer': {
        const asked = message.to === undefined ? undefined : asks.get(message.to);
        if (asked) {
          adopt(message.session);
          asked(true);
        } else if (message.to === undefined && vault.tokens() && message.session.user.sub === person()) {
          // The same person signed in again elsewhere (a step-up's wider grant): one session per browser.
          adopt(message.session);
        } else if (message.to === undefined && !asks.size && ['signed-out', 'expired'].includes(state.session.current.status)) {
          // A sign-in elsewhere: a tab without a session asks for it (once at a time), and adopts only the answer it asked for.
          void ask();
        }
        return;
      }
      case 'renew': {
        const current = vault.tokens();
        if (!ours || !leading || !current) return;
        // Renewed already: the asking tab only missed it. Offline: this tab retries for every tab on its own
        // backoff, and the asking tab hears of the renewal under way as it ends. Otherwise renew once for
        // every tab, and no more often than RENEW_ASKED_MS however many tabs ask.
        if (current.expiresAt > message.expiresAt) post({ type: 'renewed', id: message.id, sub: person()!, tokens: current });
        else if (vault.offline()) {
          if (!vault.renewing()) post({ type: 'offline', id: message.id });
        } else if (parts.now() - renewAskedAt >= RENEW_ASKED_MS) {
          renewAskedAt = parts.now();
          void vault.renew();
        }
        return;
      }
      case 'renewed': {
        const current = vault.tokens();
        // Only a renewal of what this tab holds: the current tokens sent to a tab that missed them are not one here.
        if (!forPerson || !current || !isRenewal(current, message.tokens)) return;
        if (!settleRenewals(message.tokens)) vault.take(message.tokens);
        return;
      }
      case 'offline':
        // The leader's renewal could not reach the provider: a renewal waiting for it learns so now, and
        // this tab's session is offline too, until the leader's next renewal arrives ('renewed').
        if (ours && !settleRenewals(undefined, new AuthError('unreachable'))) vault.unreachable();
        return;
      case 'grant': {
        if (!ours || !leading || !parts.grantable(message.params)) return;
        const { id: session, from } = message;
        const answer = (reply: { tokens?: TokenSet; error?: AuthErrorCode }) =>
          session === id && post({ type: 'granted', id: session, to: from, sub: person()!, ...reply });
        grants.get(message.params).then(
          (tokens) => answer({ tokens }),
          (err: unknown) => answer({ error: failureCode(err) }),
        );
        return;
      }
      case 'granted': {
        const waiter = forPerson ? waiting.get(message.to) : undefined;
        waiter?.settle(message.tokens, message.error && new AuthError(message.error));
        return;
      }
      case 'rotated':
        if (forPerson) vault.rotate(message.refreshToken);
        return;
      case 'ended':
        // The leader's refresh token was refused: the session is over in every tab (waiting grants abort).
        if (ours) vault.end(new AuthError('session_expired'));
        return;
      case 'signed-out':
        if (!ours) return;
        leave();
        parts.signedOut();
    }
  }
  channel?.addEventListener('message', onMessage);

  /** Settles the renewals this tab waits for with the leader's result; false when none waits. */
  function settleRenewals(tokens?: TokenSet, err?: AuthError): boolean {
    const renewals = [...waiting.values()].filter((waiter) => !waiter.params);
    for (const waiter of renewals) waiter.settle(tokens, err);
    return renewals.length > 0;
  }

  /** The leader makes the grant and tells the others what changed. */
  async function own(current: TokenSet, params: ResourceParams | undefined, signal: AbortSignal): Promise<TokenSet> {
    const session = id;
    const sub = person();
    const mine = () => session !== undefined && session === id && sub !== undefined;
    try {
      const next = await parts.endpoint(current, params, signal);
      if (mine() && !params) post({ type: 'renewed', id: session!, sub: sub!, tokens: next });
      if (mine() && params && next.refreshToken)
        post({ type: 'rotated', id: session!, sub: sub!, refreshToken: next.refreshToken });
      return next;
    } catch (err) {
      // A renewal that failed for good ends the session here (vault.ts), and so everywhere; one that could
      // not reach the provider leaves every tab's session offline, and the leader retries for all.
      if (mine() && !params) post({ type: classify(err) === 'transient' ? 'offline' : 'ended', id: session! });
      throw err;
    }
  }

  /** A follower asks the leader and waits, bounded; if the leader goes, this tab may take over. */
  function follow(current: TokenSet, params: ResourceParams | undefined, signal: AbortSignal): Promise<TokenSet> {
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
      const lead = () => {
        done();
        own(current, params, signal).then(resolve, reject);
      };
      waiting.set(from, { params, settle, lead });
      signal.addEventListener('abort', stop);
      post(params ? { type: 'grant', id: id!, from, params } : { type: 'renew', id: id!, expiresAt: current.expiresAt });
    });
  }

  /**
   * Asks the other tabs for their session and adopts it; false at once when no tab holds a lock of this
   * app's sessions, else after ASK_MS without an answer.
   */
  function ask(): Promise<boolean> {
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
        if (asks.has(from) && !held?.some((lock) => lock.name?.startsWith(names.lock))) done(false);
      });
    });
  }

  return {
    /** Every refresh-token grant of the session (the vault's `grant`): made by the leader for every tab. */
    grant: ((current, params, signal) =>
      leading || !id ? own(current, params, signal) : follow(current, params, signal)) as Grant,
    ask,
    /** This tab signed in: a new session for the browser, offered to the other tabs once it leads, so it answers their asks. */
    signedIn() {
      join(oauth.generateRandomState(), () => share());
    },
    /** This tab signs out: every tab of the session signs out without revoking again. */
    signedOut() {
      if (id) post({ type: 'signed-out', id });
      leave();
    },
    /** The session this tab has joined on the channel, and whether it leads it (makes the grants); none when it holds no session. */
    member: () => ({ id, leading }),
    destroy() {
      channel?.removeEventListener('message', onMessage);
      for (const waiter of [...waiting.values()]) waiter.settle(undefined, new AuthError('aborted'));
      leave();
    },
  };
}

export type Relay = ReturnType<typeof createRelay>;

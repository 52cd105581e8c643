// The session policy that createAuth and the test kit share, so they cannot drift: the session a view
// reads (session.ts), the token vault (vault.ts), auth.fetch with its allow-list and resources. What
// differs is only where requests go and how a session begins. It holds the module's one lazy seam:
// everything that follows the first paint (later.ts) loads behind a single import().
import type { Client } from 'oauth4webapi';
import type { ApiOptions } from './protocol/apis';
import { publicError } from './protocol/errors';
import { createEvents, type SignOutReason } from './page/events';
import type { Network } from './protocol/http';
import type { Instance, Joined } from './tabs/later';
import type { Claims } from './protocol/steps';
import { createResource, type ResourceOptions, type ResourceUrl } from './svelte/resource.svelte';
import { createSession, type SessionState } from './svelte/session';
import { createVault, type Held } from './session/tokens';

export interface CoreParts<C extends Claims> {
  client: Client;
  network: Network;
  /** Per-request timeout over the whole exchange. */
  timeoutMs: number;
  /** What every sign-in of the instance asks for. */
  scope: string;
  /** APIs with tokens of their own, keyed by origin in any URL form. */
  apis?: Record<string, ApiOptions>;
  /** Scope tokens an origin outside `apis` may ask a step-up for (auth.fetch). */
  stepUpScopes?: string;
  /** Origins that may receive a token, in any URL form: read once, when auth.fetch is first used. */
  allowed: () => Iterable<string>;
  /** The provider's metadata, when it is discovered: auth.fetch waits for it (its userinfo origin is allowed). */
  ready?: () => Promise<unknown>;
  /** The page's URL, which relative URLs resolve against. */
  base: () => string;
  now: () => number;
  maxBytes?: number;
  initial?: SessionState<C>;
  /**
   * The app's other tabs (later.ts): every refresh-token grant goes through the tab holding the
   * session's lock. None: a lone session that ends at expiry (the test kit).
   */
  tabs?: Omit<Instance<C>, 'vault' | 'state' | 'signedIn'>;
}

/** What loads after the first paint: the tabs, auth.fetch, sign-out at the provider, step-up. */
export type Later = typeof import('./tabs/later');

export function createCore<C extends Claims>(parts: CoreParts<C>) {
  const events = createEvents();
  const state = createSession<C>(events, parts.initial);
  let later: Promise<Later> | undefined;
  const load = () => (later ??= import('./tabs/later'));
  // The relay to the other tabs, and the page's events: loaded when the tab has settled, or by the first grant.
  let relay: Promise<Joined> | undefined;
  let joined: Joined | undefined;
  const { tabs } = parts;
  const connect =
    tabs && (() => (relay ??= load().then((module) => (joined = module.connectTabs<C>({ ...tabs, vault, state, signedIn })))));
  const vault = createVault({
    ...parts,
    grant: connect && (async () => (await connect()).grant),
    renewed: (tokens) => state.renewed(tokens.expiresAt),
    offline: state.offline,
    ended: (error) => state.expired(error),
    retrying: (error) => events.emit('renew-failed', { error: publicError(error) }),
  });
  /** A session begins here: signed in, a step-up's wider grant, or adopted from another tab. */
  function signedIn(held: Held, user: C) {
    vault.hold(held);
    state.signedIn(user, held.tokens.expiresAt);
  }
  // No view on the sign-in path calls an API: auth.fetch loads with the first call, not with the page.
  let authFetch: Promise<typeof globalThis.fetch> | undefined;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    await parts.ready?.();
    authFetch ??= load().then((module) => {
      const allowed = new Set([...parts.allowed()].map((url) => new URL(url).origin));
      return module.createAuthFetch({ ...parts, vault, allowed });
    });
    return (await authFetch)(input, init);
  };
  return {
    state,
    vault,
    /** The instance's events: `on` for the app; `emit` for what no transition of the session tells (offline, online). */
    events,
    /** The code that follows the first paint, loaded once. */
    later: load,
    /** The other tabs of the app, connected once; undefined without `tabs`. */
    tabs: async (): Promise<Joined | undefined> => connect?.(),
    /** The relay once connected: what a sign-out tells the other tabs, and what destroy() closes. */
    joined: () => joined,
    fetch,
    /** The session once it is neither loading nor redirecting. */
    settled: () =>
      new Promise<SessionState<C>>((resolve) => {
        const stop = state.session.subscribe((s) => {
          if (s.status != 'loading' && s.status != 'redirecting') {
            resolve(s);
            // Later: `stop` exists once subscribe() returns, and it runs this at once when already settled.
            queueMicrotask(() => stop());
          }
        });
      }),
    resource: <T>(url: ResourceUrl, options?: ResourceOptions<T>) => createResource<T>(state.session, fetch, url, options),
    signedIn,
    /** Forgets the session and returns the tokens it held, live or ended on its own, for revocation. */
    signOut(reason: SignOutReason) {
      const had = vault.drop();
      state.signedOut(reason);
      return had;
    },
    /** Drops the session, its timers, requests and listeners, and closes the relay if it was connected. */
    destroy() {
      events.clear();
      vault.drop();
      if (joined) joined.destroy();
      else void relay?.then((connected) => connected.destroy());
    },
  };
}

export type Core<C extends Claims> = ReturnType<typeof createCore<C>>;

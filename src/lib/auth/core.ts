// The session policy that createAuth and the test kit share, so they cannot drift: the session's
// transitions, the tokens and their renewal, fetch with its allow-list, challenges and error
// conversion, and resources. What differs is only where requests go and how a session begins.
import type { AuthFetchParts } from './fetch';
import type { Network } from './http';
import type { ApiOptions } from './apis';
import type { Claims, ResourceParams, Server, TokenSet } from './protocol';
import { createRenewal } from './renewal';
import { createResource, type ResourceOptions, type ResourceUrl } from './resource.svelte';
import { createSession, type SessionState } from './session';

export interface CoreParts<C extends Claims> {
  /** Read at each request: the DPoP key arrives after the instance is made, the scope grows with a step-up. */
  server: () => Pick<Server, 'timeoutMs' | 'dpop'> & { scope?: string };
  network: Network;
  /** Exchanges the refresh token (RFC 6749 §6), for one API with `extra` (RFC 8707 §2.2); the signal aborts it when the session ends. */
  refresh?(current: TokenSet, signal: AbortSignal, extra?: ResourceParams): Promise<TokenSet>;
  /** APIs with tokens of their own, keyed by origin in any URL form. */
  apis?: Record<string, ApiOptions>;
  /** The scope the instance signs in with before any step-up. */
  scope?: string;
  /** Origins that may receive the token, in any URL form. */
  allowed: Iterable<string>;
  /** The page's URL, which relative URLs resolve against. */
  base: () => string;
  now: () => number;
  maxBytes?: number;
  initial?: SessionState<C>;
}

export function createCore<C extends Claims>(parts: CoreParts<C>) {
  const state = createSession<C>(parts.initial);
  // The tokens of a session that expired on its own, kept in memory only to end it properly on sign-out.
  let ended: TokenSet | undefined;
  const renewal = createRenewal(parts, {
    refresh: parts.refresh,
    renewed: (next) => state.renewed(next.expiresAt),
    expired(err, had) {
      ended = had;
      state.expired(err);
    },
  });
  const fetchParts: AuthFetchParts = {
    ...parts,
    renewal,
    allowed: new Set([...parts.allowed].map((url) => new URL(url).origin)),
  };
  // No view on the sign-in path calls the API: auth.fetch loads with the first call, not with the page.
  let loading: Promise<typeof globalThis.fetch> | undefined;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    loading ??= import('./fetch').then((module) => module.createAuthFetch(fetchParts));
    return (await loading)(input, init);
  };
  return {
    state,
    renewal,
    fetch,
    resource: <T>(url: ResourceUrl, options?: ResourceOptions<T>) => createResource<T>(state.session, fetch, url, options),
    signedIn(tokens: TokenSet, user: C) {
      ended = undefined;
      renewal.adopt(tokens);
      state.signedIn(user, tokens.expiresAt);
    },
    /** Forgets the session and returns the tokens it held, live or expired, for revocation. */
    signOut(): TokenSet | undefined {
      const had = renewal.drop() ?? ended;
      ended = undefined;
      state.signedOut();
      return had;
    },
  };
}

export type Core<C extends Claims> = ReturnType<typeof createCore<C>>;

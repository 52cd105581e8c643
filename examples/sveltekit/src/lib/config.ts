// The deployment's settings, read at run time from /config.json, so one build serves any identity
// provider (and the e2e test can point it at a provider on an ephemeral port).
import { asset, resolve } from '$app/paths';
import type { AuthOptions } from '@pkce-spa/auth';

/** What /config.json holds: the provider's endpoints in RFC 8414 names, this app's client id, and its API. */
export interface AppConfig {
  server: AuthOptions['server'];
  clientId: string;
  /** Default 'openid profile email': the start page shows the name and email claims. */
  scope?: string;
  /** An API the orders page's load calls with auth.fetch (its origin may receive the token); none: no call. */
  apiUrl?: string;
}

/**
 * The claims the pages show (the provider's userinfo answer). A type alias, not an interface, so it
 * also fits a `Claims extends Record<string, unknown>` bound, which an interface never satisfies.
 */
export type Claims = {
  sub: string;
  name?: string;
  email?: string;
  preferred_username?: string;
};

const ENDPOINTS = ['issuer', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint'] as const;

/** The auth options for an app at `origin` and its API, from /config.json; throws a readable message when that is unusable. */
export async function loadConfig(
  fetch: typeof globalThis.fetch,
  origin: string,
): Promise<{ authOptions: AuthOptions; apiUrl: string | null }> {
  const response = await fetch(asset('/config.json'), { cache: 'no-store' });
  if (!response.ok) throw new Error(`/config.json answered ${response.status}; see the README for its fields`);
  const config = (await response.json()) as Partial<AppConfig>;
  const { server, clientId } = config;
  const issuer = server?.issuer;
  const missing = [
    ...ENDPOINTS.filter((key) => typeof server?.[key] !== 'string').map((key) => `server.${key}`),
    ...(typeof clientId === 'string' ? [] : ['clientId']),
  ];
  if (!server || typeof issuer !== 'string' || typeof clientId !== 'string' || missing.length)
    throw new Error(`/config.json lacks ${missing.join(', ')}`);
  const apiUrl = typeof config.apiUrl === 'string' ? new URL(config.apiUrl).href : null;
  const authOptions: AuthOptions = {
    // Every endpoint is listed, so nothing is discovered.
    issuer,
    server,
    clientId,
    // Its own route, so the provider's answer never lands on a page that renders anything else.
    redirectUri: new URL(resolve('/callback'), origin).href,
    // The provider's sign-out brings the person back to the start page, not to the callback route.
    postLogoutRedirectUri: new URL(resolve('/'), origin).href,
    scope: config.scope ?? 'openid profile email',
    apiOrigins: apiUrl ? [new URL(apiUrl).origin] : [],
  };
  return { authOptions, apiUrl };
}

/**
 * What prerendering (Node, build time) creates the instance with. That instance renders each page's
 * loading state and is never started, so it contacts nobody and needs options of the right shape
 * only; the browser makes its own from /config.json.
 */
export const PRERENDER_OPTIONS: AuthOptions = {
  server: {
    issuer: 'http://localhost/',
    authorization_endpoint: 'http://localhost/authorize',
    token_endpoint: 'http://localhost/token',
    userinfo_endpoint: 'http://localhost/userinfo',
  },
  clientId: 'prerender',
  redirectUri: 'http://localhost/callback',
};

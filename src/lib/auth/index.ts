// The public API of the auth module: everything a view needs, and no way to reach a token.
import { get, writable, type Readable } from 'svelte/store';
import type { AppConfig } from '../../config';
import { createAuth, INITIAL_STATE, type Auth, type AuthFetchInit, type CallbackResponse, type SessionState } from './session';
import { createResource, type AuthResource, type AuthResourceOptions } from './resource';
import type { UserProfile } from './protocol';

export { AuthError, type AuthErrorCode, type AuthErrorDetails } from './errors';
export {
  safeRoute,
  takeCallbackResponse,
  type AuthFetchInit,
  type CallbackResponse,
  type SessionError,
  type SessionState,
  type SessionStatus,
} from './session';
export type { AuthResource, AuthResourceOptions, ResourceState, ResourceStatus } from './resource';
export type { UserProfile } from './protocol';

const state = writable<SessionState>(INITIAL_STATE);
let auth: Auth | undefined;
let userinfoUrl = '';

/** The session: `{ status, user, expiresAt, error }`. It never carries a token. */
export const session: Readable<SessionState> = { subscribe: state.subscribe };

/**
 * Starts the session once the config is known: completes a callback taken from the URL with
 * takeCallbackResponse(), or restores a session, or settles as signed out.
 * `navigate` shows an app route (the router's replace()).
 */
export function startAuth(config: AppConfig, navigate: (route: string) => void, callback?: CallbackResponse) {
  auth = createAuth(config, state, navigate);
  userinfoUrl = `${config.authUrl}/connect/userinfo`;
  return auth.start(callback);
}

function started(): Auth {
  if (!auth) throw new Error('startAuth() must run first');
  return auth;
}

/** Sends the person to the identity service; afterwards the app shows `returnTo` (default /profile). */
export const signIn = (options?: { returnTo?: string }) => started().signIn(options);

/** Forgets the tokens here and in every other tab of the app, and shows the start page. */
export const signOut = () => started().signOut();

/**
 * fetch with `Authorization: Bearer`, only to allow-listed origins, without cookies, referrer or
 * redirects, with a timeout; one renewal and replay after a 401 invalid_token (RFC 6750 §3.1).
 */
export const authFetch = (input: string | URL, init?: AuthFetchInit) => started().authFetch(input, init);

/** A store of `url` loaded with the token: `{ status, data, error }` plus reload(). */
export function authResource<T = unknown>(url: string, options?: AuthResourceOptions<T>): AuthResource<T> {
  return createResource(session, authFetch, url, options);
}

/**
 * The signed-in user's profile from userinfo, checked against the ID token's subject. It starts from
 * the profile the sign-in itself fetched, so showing it costs no second request; reload() refetches.
 */
export function profileResource(): AuthResource<UserProfile> {
  return authResource(userinfoUrl, { read: (response) => started().readProfile(response), initial: () => get(state).user });
}

// The public API of the auth module: everything a view needs, and no way to reach a token.
export type { ApiOptions } from './protocol/apis';
export type { AuthOptions, ClientOptions, ServerEndpoints, ServerOptions } from './options';
export {
  createAuth,
  type Auth,
  type IdleOptions,
  type IdleState,
  type SignInOptions,
  type StartOptions,
  type StartResult,
} from './auth';
export { hintsOf, type Prompt, type SignInHints } from './protocol/hints';
export { authContext, getAuth, setAuth } from './svelte/context';
export { AuthError, stepUpFor, type AuthErrorCode, type AuthErrorDetails } from './protocol/errors';
export type { AuthEvents, AuthEventType, AuthListener, SignOutReason } from './page/events';
export type { StepUpOptions } from './protocol/scope';
export type { StandardClaims } from './protocol/steps';
export type { Resource, ResourceOptions, ResourceState, ResourceStatus, ResourceUrl } from './svelte/resource.svelte';
export type { ReactiveStore, SessionError, SessionState, SessionStatus } from './svelte/session';

// The public API of the auth module: everything a view needs, and no way to reach a token.
export type { ApiOptions } from './apis';
export {
  createAuth,
  type Auth,
  type AuthOptions,
  type ClientOptions,
  type ServerEndpoints,
  type ServerOptions,
  type IdleOptions,
  type IdleState,
  type SignInOptions,
  type StartOptions,
  type StartResult,
} from './auth';
export type { Prompt, SignInHints } from './hints';
export { authContext, getAuth, setAuth } from './context';
export { AuthError, stepUpFor, type AuthErrorCode, type AuthErrorDetails } from './errors';
export type { AuthEvents, AuthEventType, AuthListener, SignOutReason } from './events';
export type { StepUpOptions } from './scope';
export type { StandardClaims } from './protocol';
export type { Resource, ResourceOptions, ResourceState, ResourceStatus, ResourceUrl } from './resource.svelte';
export type { ReactiveStore, SessionError, SessionState, SessionStatus } from './session';

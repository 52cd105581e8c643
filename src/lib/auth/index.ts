// The public API of the auth module: everything a view needs, and no way to reach a token.
export { createAuth, safeRoute, type Auth, type AuthOptions } from './auth';
export { authContext, getAuth, setAuth } from './context';
export { AuthError, type AuthErrorCode, type AuthErrorDetails } from './errors';
export { takeCallbackResponse, type CallbackResponse } from './callback';
export { isLoopbackHost } from './http';
export { browserPort, type BrowserPort } from './port';
export type { UserProfile } from './protocol';
export type { Resource, ResourceOptions, ResourceState, ResourceStatus, ResourceUrl } from './resource.svelte';
export type { ReactiveStore, SessionError, SessionState, SessionStatus } from './session';
export { safeText } from './text';

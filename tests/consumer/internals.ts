// The package exposes its API and test kit, not its modules: each helper below is internal, and
// importing it from either entry (or from a module path) must fail to compile.
// @ts-expect-error internal
export { safeRoute } from '@pkce-spa/auth';
// @ts-expect-error internal
export { isLoopbackHost } from '@pkce-spa/auth';
// @ts-expect-error internal
export { browserPort } from '@pkce-spa/auth';
// @ts-expect-error internal
export { takeCallbackResponse } from '@pkce-spa/auth';
// @ts-expect-error internal
export { safeText } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createAuthFetch } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { BrowserPort } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { CallbackResponse } from '@pkce-spa/auth';
// @ts-expect-error internal
export { safeRoute as testingSafeRoute } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { isLoopbackHost as testingIsLoopbackHost } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { browserPort as testingBrowserPort } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { takeCallbackResponse as testingTakeCallbackResponse } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { safeText as testingSafeText } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createAuthFetch as testingCreateAuthFetch } from '@pkce-spa/auth/testing';
// @ts-expect-error a module path that the package's `exports` does not list
export { createAuthFetch as deep } from '@pkce-spa/auth/fetch';
// @ts-expect-error the shipped sources are for go-to-definition, not for importing
export { createAuth as source } from '@pkce-spa/auth/src/index.js';

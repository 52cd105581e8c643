// The package exposes its API and test kit, not its modules.
// @ts-expect-error not exported from the package's entry
export { createAuthFetch } from '@pkce-spa/auth';
// @ts-expect-error a module path that the package's `exports` does not list
export { createAuthFetch as deep } from '@pkce-spa/auth/fetch';

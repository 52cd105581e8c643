// The package exposes its API and test kit, not its modules: each name below is one of the module's
// internals (as its source exports it today), and importing it from either entry (or from a module
// path) must fail to compile. scripts/check-package.js checks that every name here is still one the
// package's sources export, so the list cannot go stale.
// @ts-expect-error internal
export { assembleAuth } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createEngine } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createSession } from '@pkce-spa/auth';
// @ts-expect-error internal
export { reactiveStore } from '@pkce-spa/auth';
// @ts-expect-error internal
export { sessionState } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createVault } from '@pkce-spa/auth';
// @ts-expect-error internal
export { classify } from '@pkce-spa/auth';
// @ts-expect-error internal
export { connect } from '@pkce-spa/auth';
// @ts-expect-error internal
export { serveWorker } from '@pkce-spa/auth';
// @ts-expect-error internal
export { parseRequest } from '@pkce-spa/auth';
// @ts-expect-error internal
export { listenPage } from '@pkce-spa/auth';
// @ts-expect-error internal
export { appNames } from '@pkce-spa/auth';
// @ts-expect-error internal
export { appStorage } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createSignIn } from '@pkce-spa/auth';
// @ts-expect-error internal
export { takeCallbackResponse } from '@pkce-spa/auth';
// @ts-expect-error internal
export { takeSignOutReturn } from '@pkce-spa/auth';
// @ts-expect-error internal
export { safeReturnTo } from '@pkce-spa/auth';
// @ts-expect-error internal
export { authorizationRequest } from '@pkce-spa/auth';
// @ts-expect-error internal
export { exchangeCode } from '@pkce-spa/auth';
// @ts-expect-error internal
export { refreshTokens } from '@pkce-spa/auth';
// @ts-expect-error internal
export { fetchUserInfo } from '@pkce-spa/auth';
// @ts-expect-error internal
export { toClaims } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createAuthFetch } from '@pkce-spa/auth';
// @ts-expect-error internal
export { allowedUrl } from '@pkce-spa/auth';
// @ts-expect-error internal
export { requestOptions } from '@pkce-spa/auth';
// @ts-expect-error internal
export { isLoopbackHost } from '@pkce-spa/auth';
// @ts-expect-error internal
export { realBrowser } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createResource } from '@pkce-spa/auth';
// @ts-expect-error internal
export { toAuthError } from '@pkce-spa/auth';
// @ts-expect-error internal
export { readChallenge } from '@pkce-spa/auth';
// @ts-expect-error internal
export { stepUpRequest } from '@pkce-spa/auth';
// @ts-expect-error internal
export { completeStepUp } from '@pkce-spa/auth';
// @ts-expect-error internal
export { revokeAll } from '@pkce-spa/auth';
// @ts-expect-error internal
export { endSessionRequest } from '@pkce-spa/auth';
// @ts-expect-error internal
export { createKeys } from '@pkce-spa/auth';
// @ts-expect-error internal
export { apiParams } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { Browser } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { CallbackResponse } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { TokenSet } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { Held } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { Vault } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { Engine } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { PageClient } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { Server } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { PendingSignIn } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { Network } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { AppNames } from '@pkce-spa/auth';
// @ts-expect-error internal
export type { AppStorage } from '@pkce-spa/auth';
// @ts-expect-error internal
export { assembleAuth as testingAssembleAuth } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createEngine as testingCreateEngine } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createSession as testingCreateSession } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { reactiveStore as testingReactiveStore } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { sessionState as testingSessionState } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createVault as testingCreateVault } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { classify as testingClassify } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { connect as testingConnect } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { serveWorker as testingServeWorker } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { parseRequest as testingParseRequest } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { listenPage as testingListenPage } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { appNames as testingAppNames } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { appStorage as testingAppStorage } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createSignIn as testingCreateSignIn } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { takeCallbackResponse as testingTakeCallbackResponse } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { takeSignOutReturn as testingTakeSignOutReturn } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { safeReturnTo as testingSafeReturnTo } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { authorizationRequest as testingAuthorizationRequest } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { exchangeCode as testingExchangeCode } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { refreshTokens as testingRefreshTokens } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { fetchUserInfo as testingFetchUserInfo } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { toClaims as testingToClaims } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createAuthFetch as testingCreateAuthFetch } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { allowedUrl as testingAllowedUrl } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { requestOptions as testingRequestOptions } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { isLoopbackHost as testingIsLoopbackHost } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { realBrowser as testingBrowserPort } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createResource as testingCreateResource } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { toAuthError as testingToAuthError } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { readChallenge as testingReadChallenge } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { stepUpRequest as testingStepUpRequest } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { completeStepUp as testingCompleteStepUp } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { revokeAll as testingRevokeAll } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { endSessionRequest as testingEndSessionRequest } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { createKeys as testingCreateKeys } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export { apiParams as testingApiParams } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { Browser as TestingBrowserPort } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { CallbackResponse as TestingCallbackResponse } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { TokenSet as TestingTokenSet } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { Held as TestingHeld } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { Vault as TestingVault } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { Engine as TestingEngine } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { PageClient as TestingPageClient } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { Server as TestingServer } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { PendingSignIn as TestingPendingSignIn } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { Network as TestingNetwork } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { AppNames as TestingAppNames } from '@pkce-spa/auth/testing';
// @ts-expect-error internal
export type { AppStorage as TestingAppStorage } from '@pkce-spa/auth/testing';
// @ts-expect-error a module path that the package's `exports` does not list
export { createAuthFetch as deep } from '@pkce-spa/auth/fetch';
// @ts-expect-error a module path that the package's `exports` does not list
export { createVault as deepVault } from '@pkce-spa/auth/dist/vault.js';
// @ts-expect-error the shipped sources are for go-to-definition, not for importing
export { createAuth as source } from '@pkce-spa/auth/src/index.js';

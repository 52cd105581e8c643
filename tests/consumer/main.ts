// A consumer of the packaged library: compiles only if the published types are right. Each line
// marked as an expected error is a misuse the types must refuse; if they stop refusing it, the check fails.
import { mount } from 'svelte';
import {
  AuthError,
  authContext,
  createAuth,
  getAuth,
  setAuth,
  type Auth,
  type AuthErrorCode,
  type AuthErrorDetails,
  type AuthEvents,
  type AuthEventType,
  type AuthListener,
  type AuthOptions,
  type IdleOptions,
  type IdleState,
  type ReactiveStore,
  type Resource,
  type ResourceOptions,
  type ResourceState,
  type ResourceStatus,
  type ResourceUrl,
  type SessionError,
  type SessionState,
  type SessionStatus,
  type SignInOptions,
  type StandardClaims,
  type StartOptions,
  type StartResult,
  type SignOutReason,
} from '@pkce-spa/auth';
import { createTestAuth, TEST_TOKEN } from '@pkce-spa/auth/testing';
import type { Claims } from './claims';
import Orders from './Orders.svelte';

const options: AuthOptions = {
  server: {
    issuer: 'https://id.example.com',
    authorization_endpoint: 'https://id.example.com/authorize',
    token_endpoint: 'https://id.example.com/token',
    userinfo_endpoint: 'https://id.example.com/userinfo',
    end_session_endpoint: 'https://id.example.com/logout',
  },
  clientId: 'spa',
  redirectUri: 'https://app.example.com/callback',
  scope: 'openid profile',
  apiOrigins: ['https://api.example.com'],
  // A token of its own for the orders API (RFC 8707): its origin is allow-listed with it.
  apis: { 'https://orders.example.com': { resource: 'https://orders.example.com', scope: 'orders.read' } },
  timeoutMs: 10_000,
  maxResponseBytes: 1_000_000,
};
const auth: Auth<Claims> = createAuth<Claims>(options);
// Without a type argument, the claims are the standard ones.
export const standard: Auth<StandardClaims> = createAuth(options);

// After a sign-in, the app navigates to `returnTo` itself; a silent restore is told where to return.
const started: Promise<StartResult> = auth.start();
const { returnTo }: { returnTo?: string } = await started;
if (returnTo !== undefined) history.replaceState(null, '', returnTo);
const restoreTo: StartOptions = { returnTo: '/orders?page=2' };
void auth.start(restoreTo);

const flat = {
  authorizationEndpoint: 'https://id.example.com/authorize',
  clientId: 'spa',
  redirectUri: 'https://app.example.com/',
};
// @ts-expect-error the endpoints go in `server`, in RFC 8414 names, or the `issuer` alone
createAuth(flat);
// @ts-expect-error the claims have a `sub`
createAuth<{ name: string }>(options);

const signIn: SignInOptions = { returnTo: '/orders' };
void auth.signIn(signIn);
void auth.signIn();
// Hints for the provider (OIDC Core §3.1.2.1); extra parameters only by names the options allow.
void auth.signIn({
  login_hint: 'ada@example.com',
  ui_locales: 'de en',
  prompt: 'select_account',
  extraParams: { organization: 'acme' },
});
// @ts-expect-error not a prompt value of OIDC
void auth.signIn({ prompt: 'always' });
// The issuer alone: the endpoints are discovered (OIDC Discovery 1.0).
export const discovered: Auth = createAuth({
  issuer: 'https://id.example.com',
  clientId: 'spa',
  redirectUri: 'https://app.example.com/',
  extraParams: ['organization'],
});

const session: ReactiveStore<SessionState<Claims>> = auth.session;
const status: SessionStatus = session.current.status;
const tenant: string | undefined = session.current.user?.tenant;
const sub: string | undefined = session.current.user?.sub;
const failure: SessionError | null = session.current.error;
const failureCode: AuthErrorCode | undefined = failure?.code;
const failureReturnTo: string | undefined = failure?.returnTo;
// Signed in, but the last renewal could not reach the provider: kept, and retried.
const offline: boolean = session.current.offline;
// Signed in, but it cannot renew without the person (no refresh token, the hidden frame refused): it ends then.
const endsAt: number | null = session.current.endsAt;
void [status, tenant, sub, failureCode, failureReturnTo, offline, endsAt];
// @ts-expect-error the session never carries a token
export const token = auth.session.current.accessToken;

// Idle sign-out: whole milliseconds in, a countdown out, and a way to stay.
const idle: IdleOptions = { timeoutMs: 15 * 60_000, warnMs: 60_000 };
createAuth({ ...options, idle });
// @ts-expect-error the warning needs its own length
createAuth({ ...options, idle: { timeoutMs: 15 * 60_000 } });
const countdown: ReactiveStore<IdleState> = auth.idle;
const left: number | undefined = countdown.current.warning ? countdown.current.remainingMs : undefined;
// @ts-expect-error no time left is given outside a warning
export const leftAnyway: number = countdown.current.remainingMs;
auth.stayActive();
void left;

export const plainFetch: typeof fetch = auth.fetch;
mount(Orders, { target: document.body, props: { ordersUrl: 'https://api.example.com/orders' }, context: authContext(auth) });
// @ts-expect-error a prop the view requires is missing
mount(Orders, { target: document.body, props: {}, context: authContext(auth) });

// setAuth is for a root component's script and getAuth for a view's; here only their types are checked.
export const provide: (auth: Auth<Claims>) => unknown = setAuth;
export const take: () => Auth<Claims> = () => getAuth<Claims>();

const test = createTestAuth<Claims>({
  user: { sub: 'u1', name: 'Test User', tenant: 'acme' },
  apiOrigins: ['https://api.example.com'],
  handler: (request) => Response.json({ items: [], auth: request.headers.get('authorization') === `Bearer ${TEST_TOKEN}` }),
});
const testAuth: Auth<Claims> = test;
void testAuth;
for (const start of ['loading', 'signed-out', 'redirecting', 'signed-in', 'expired', 'error'] as const) {
  createTestAuth({ status: start }).destroy();
}
// @ts-expect-error not a session status
createTestAuth({ status: 'gone' });

let id: string | null = null;
const url: ResourceUrl = () => id && `https://api.example.com/orders/${id}`;
const resourceOptions: ResourceOptions<{ items: string[] }> = {
  init: { cache: 'no-store' },
  read: (response) => response.json(),
};
const orders: Resource<{ items: string[] }> = test.resource<{ items: string[] }>(url, resourceOptions);
id = 'o1';

// @ts-expect-error without narrowing, data may be null
export const unchecked: string[] = orders.current.data.items;
const state: ResourceState<{ items: string[] }> = orders.current;
const resourceStatus: ResourceStatus = state.status;
void resourceStatus;
if (state.status === 'ok') {
  const items: string[] = state.data.items;
  void items;
} else if (state.status === 'error') {
  const code: AuthErrorCode = state.error.code;
  const httpStatus: number | undefined = state.error.status;
  void [code, httpStatus];
}
orders.mutate((old) => ({ items: [...(old?.items ?? []), 'new'] }));
// @ts-expect-error mutate takes the resource's data type
orders.mutate({ items: [1] });
orders.reload();

try {
  await test.fetch('/orders', { method: 'POST', body: new FormData() });
} catch (err) {
  if (err instanceof AuthError && err.code === 'forbidden_origin') test.signOut();
  if (err instanceof AuthError) {
    const details: AuthErrorDetails = err;
    void details;
    // An API's challenge carries what to ask for: a step-up with exactly that (RFC 6750 §3.1, RFC 9470).
    const { scope, acr_values, max_age }: { scope?: string; acr_values?: string; max_age?: number } = err;
    if (err.code === 'insufficient_scope') await test.signIn({ scope, returnTo: '/orders' });
    if (err.code === 'insufficient_user_authentication') await test.signIn({ acr_values, max_age });
  }
}
const codes: Record<AuthErrorCode, true> = {
  cancelled: true,
  authorization_failed: true,
  login_required: true,
  unknown_transaction: true,
  unknown_signout: true,
  invalid_grant: true,
  token_error: true,
  invalid_response: true,
  unreachable: true,
  timeout: true,
  session_expired: true,
  insufficient_scope: true,
  scope_not_allowed: true,
  insufficient_user_authentication: true,
  step_up_failed: true,
  account_changed: true,
  frame_refused: true,
  interaction_required: true,
  forbidden_origin: true,
  unauthenticated: true,
  http_error: true,
  aborted: true,
  param_not_allowed: true,
  discovery_failed: true,
  idle_timeout: true,
};
void codes;
// @ts-expect-error not an error code of the library
export const unknownCode: AuthErrorCode = 'token_leaked';
// Events: each listener is typed by its type's payload, and the unsubscribe is a plain function.
const reasons: Record<SignOutReason, number> = { user: 0, 'other-tab': 0, idle: 0, provider: 0 };
const stop: () => void = auth.on('signed-out', ({ reason }) => reasons[reason]++);
auth.on('renew-failed', ({ error }) => console.warn(error.code));
auth.on('signed-in', ({ sub }: AuthEvents['signed-in']) => console.info(sub));
const onExpired: AuthListener<'expired'> = ({ error }) => console.warn(error?.code);
test.on('expired', onExpired);
const everyType: Record<AuthEventType, true> = {
  'signed-in': true,
  renewed: true,
  'renew-failed': true,
  expired: true,
  'signed-out': true,
  offline: true,
  online: true,
  error: true,
};
void everyType;
// @ts-expect-error not an event of the library
auth.on('token', () => {});
// @ts-expect-error no event carries a claim but `sub`
auth.on('signed-in', ({ email }) => console.info(email));
stop();
test.destroy();
auth.destroy();

// A consumer of the packaged library: compiles only if the published types are right. Each line
// marked as an expected error is a misuse the types must refuse; if they stop refusing it, the check fails.
import { mount } from 'svelte';
import { AuthError, authContext, createAuth, setAuth, type Auth, type AuthErrorCode, type ResourceState } from '@pkce-spa/auth';
import { createTestAuth, TEST_TOKEN } from '@pkce-spa/auth/testing';
import Orders from './Orders.svelte';

const auth: Auth = createAuth({
  server: {
    issuer: 'https://id.example.com',
    authorization_endpoint: 'https://id.example.com/authorize',
    token_endpoint: 'https://id.example.com/token',
    userinfo_endpoint: 'https://id.example.com/userinfo',
  },
  clientId: 'spa',
  redirectUri: 'https://app.example.com/',
  apiOrigins: ['https://api.example.com'],
});
const started: Promise<void> = auth.start();

const flat = {
  authorizationEndpoint: 'https://id.example.com/authorize',
  clientId: 'spa',
  redirectUri: 'https://app.example.com/',
};
// @ts-expect-error the endpoints go in `server`, in RFC 8414 names
createAuth(flat);
mount(Orders, { target: document.body, props: { ordersUrl: 'https://api.example.com/orders' }, context: authContext(auth) });
void started;

// setAuth is for a root component's script; here only its type is checked.
export const provide: (auth: Auth) => Auth = setAuth;

// @ts-expect-error a prop the view requires is missing
mount(Orders, { target: document.body, props: {}, context: authContext(auth) });

const test = createTestAuth({
  user: { sub: 'u1', name: 'Test User' },
  apiOrigins: ['https://api.example.com'],
  handler: (request) => Response.json({ items: [], auth: request.headers.get('authorization') === `Bearer ${TEST_TOKEN}` }),
});
let id: string | null = null;
const orders = test.resource<{ items: string[] }>(() => id && `https://api.example.com/orders/${id}`);
id = 'o1';

// @ts-expect-error without narrowing, data may be null
export const unchecked: string[] = orders.current.data.items;
const state: ResourceState<{ items: string[] }> = orders.current;
if (state.status === 'ok') {
  const items: string[] = state.data.items;
  void items;
} else if (state.status === 'error') {
  const code: AuthErrorCode = state.error.code;
  const status: number | undefined = state.error.status;
  void [code, status];
}
orders.mutate((old) => ({ items: [...(old?.items ?? []), 'new'] }));
// @ts-expect-error mutate takes the resource's data type
orders.mutate({ items: [1] });
orders.reload();

try {
  await test.fetch('/orders', { method: 'POST', body: new FormData() });
} catch (err) {
  if (err instanceof AuthError && err.code === 'forbidden_origin') test.signOut();
}
// @ts-expect-error not an error code of the library
export const unknownCode: AuthErrorCode = 'token_leaked';
// @ts-expect-error the session never carries a token
export const token = test.session.current.accessToken;
test.destroy();

// A fresh Vite + Svelte app with path routes, using the packed @pkce-spa/auth as an installed package
// would be used. The library completes the callback and hands back `returnTo`; this app navigates.
import { authContext, createAuth, type AuthOptions, type ClientOptions, type ServerEndpoints } from '@pkce-spa/auth';
import { mount } from 'svelte';
import App from './App.svelte';
import type { Claims } from './claims';

/** The auth options from /config.json, read at run time so one build fits any provider. */
async function loadOptions(): Promise<AuthOptions> {
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`/config.json answered ${response.status}`);
  const config = (await response.json()) as { server: ServerEndpoints } & Pick<ClientOptions, 'clientId' | 'scope'>;
  return {
    server: config.server,
    clientId: config.clientId,
    scope: config.scope ?? 'openid profile email',
    redirectUri: new URL('/callback', window.location.origin).href,
    // The provider's sign-out comes back to the start page, not to the callback route.
    postLogoutRedirectUri: new URL('/', window.location.origin).href,
  };
}

async function run(): Promise<void> {
  const auth = createAuth<Claims>(await loadOptions());
  const app = mount(App, { target: document.getElementById('app')!, context: authContext(auth) });
  const { returnTo } = await auth.start();
  const { pathname, search } = window.location;
  // A completed callback goes where signIn() was called; any other answer leaves /callback for the start page.
  window.history.replaceState(null, '', returnTo ?? (pathname === '/callback' ? '/' : pathname + search));
  app.sync();
}

void run();

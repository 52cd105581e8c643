// A consumer's app, built with Vite by scripts/check-package.js: once against the package as npm
// installs it, once against stub.js (the same public surface, doing nothing), so that the difference
// between the two entry chunks is what the library adds to an app's first load. Its build must also
// emit the shared worker's script, found from the package's own `new SharedWorker(new URL(…))`.
import { mount } from 'svelte';
import { authContext, createAuth } from '@pkce-spa/auth';
import App from './App.svelte';

const auth = createAuth({
  issuer: 'https://id.example.com',
  clientId: 'spa',
  redirectUri: `${location.origin}/`,
  apiOrigins: ['https://api.example.com'],
  idle: { timeoutMs: 15 * 60_000, warnMs: 60_000 },
});
const { returnTo } = await auth.start();
if (returnTo !== undefined) history.replaceState(null, '', returnTo);
auth.on('signed-out', ({ reason }) => console.info('signed out', reason));
mount(App, { target: document.body, context: authContext(auth) });

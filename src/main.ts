import { mount } from 'svelte';
import { replace, router } from 'svelte-spa-router';
import './app.css';
import App from './App.svelte';
import { authOptions, ConfigError, loadConfig } from './config';
import { createAuth } from './lib/auth';
import { appRoute, routeOf } from './routes';

const target = document.getElementById('app')!;

/**
 * Not top-level await: the lazy chunks import this one, and a chunk still evaluating would hold their
 * imports (the configuration error page's, or a route's) until start() settled, or for ever.
 */
async function run() {
  try {
    const config = await loadConfig();
    const auth = createAuth(authOptions(config));
    // A silent restore comes back to the page the person is on.
    const started = auth.start({ returnTo: routeOf(router) });
    // Settled at once (a stranger: no response in the URL, no session to look for): nothing is on its
    // way, so the start page mounts now. Otherwise the UI mounts in the next task, so the session's
    // client and worker are on their way first; it is built while they start.
    if (auth.session.current.status === 'loading') {
      await new Promise((resolve) => setTimeout(resolve));
      // For hosts that send no Link header: userinfo's connection opens while the code is exchanged (the
      // worker shares the page's connections). Added after that task: it costs the page a style pass.
      document.head.append(
        Object.assign(document.createElement('link'), { rel: 'preconnect', href: config.authUrl, crossOrigin: '' }),
      );
    }
    mount(App, { target, props: { auth, config } });
    // The idle warning is a root of its own, loaded only where the idle sign-out is configured.
    if (config.idle)
      void import('./components/IdleDialog.svelte').then((dialog) => mount(dialog.default, { target, props: { auth } }));
    // After a callback, the app shows the page the sign-in was for: only a page of its own.
    const { returnTo } = await started;
    if (returnTo !== undefined) await replace(appRoute(returnTo) ?? '/');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const page = await import('./components/ConfigErrorPage.svelte');
    mount(page.default, { target, props: { error: err } });
  }
}

void run();

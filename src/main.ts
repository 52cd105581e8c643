import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { showConfigError } from './components/config-error-page';
import { authOptions, ConfigError, loadConfig } from './config';
import { browserPort, createAuth, takeCallbackResponse } from './lib/auth';

const target = document.getElementById('app')!;
const browser = browserPort();
// The authorization response leaves the URL (and so history and any later Referer) before anything else.
const callback = takeCallbackResponse(browser);

try {
  const config = await loadConfig();
  // For hosts that send no Link header: userinfo's connection opens while the code is exchanged.
  document.head.append(
    Object.assign(document.createElement('link'), { rel: 'preconnect', href: config.authUrl, crossOrigin: '' }),
  );
  const auth = createAuth({ ...authOptions(config), browser });
  const started = auth.start(callback);
  // The UI mounts in the next task, so the code exchange's request is on its way first; the UI is
  // built while it is in flight, then shows the claims when they arrive.
  await new Promise((resolve) => setTimeout(resolve));
  mount(App, { target, props: { auth, config } });
  await started;
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  showConfigError(target, err);
}

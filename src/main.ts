import { mount } from 'svelte';
import { replace } from 'svelte-spa-router';
import './app.css';
import App from './App.svelte';
import ConfigErrorPage from './components/ConfigErrorPage.svelte';
import { ConfigError, loadConfig } from './config';
import { startAuth, takeCallbackResponse } from './lib/auth';

const target = document.getElementById('app')!;
// The authorization response leaves the URL (and so history and any later Referer) before anything else.
const callback = takeCallbackResponse();

try {
  const config = await loadConfig();
  mount(App, { target });
  await startAuth(config, (route) => void replace(route), callback);
} catch (err) {
  const { key, problem } = err instanceof ConfigError ? err : new ConfigError('config.json', 'could not be used');
  target.replaceChildren();
  mount(ConfigErrorPage, { target, props: { key, problem } });
}

// main.ts: the app starts from config.json, or shows which setting of it is wrong.
import '@testing-library/svelte/vitest';
import { screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { appNames, appStorage } from './lib/auth/browser/storage';
import { APP_URL, json, setPageUrl } from './lib/auth/__fixtures__/fake-idp';

const CONFIG = { accountUrl: 'http://localhost:9010', authUrl: 'http://127.0.0.1:9011', clientId: 'demo-spa' };

/** Loads main.ts afresh on a page whose config.json answers `config`. */
async function boot(config: unknown) {
  const fetch = vi.fn<(input: RequestInfo | URL) => Promise<Response>>(async () => json(config));
  vi.stubGlobal('fetch', fetch);
  await import('./main');
  return fetch;
}

beforeEach(() => {
  vi.resetModules();
  setPageUrl(APP_URL);
  localStorage.clear();
  sessionStorage.clear();
  document.head.innerHTML = '';
  document.body.innerHTML = '<div id="app"></div>';
  return () => vi.unstubAllGlobals();
});

it('a stranger: the start page mounts without waiting for a task, and nothing is preconnected', async () => {
  const timers = vi.spyOn(globalThis, 'setTimeout');
  const fetch = await boot(CONFIG);
  // Microtasks only, a bounded number of them: a mount that waits for a task never comes in here.
  const mounted = await new Promise<boolean>((resolve) => {
    let turns = 0;
    const check = () =>
      document.querySelector('main') || ++turns > 10_000 ? resolve(!!document.querySelector('main')) : queueMicrotask(check);
    check();
  });
  expect(mounted).toBe(true);
  expect(timers).not.toHaveBeenCalled();
  expect(await screen.findByRole('heading', { name: 'Welcome' })).toBeTruthy();
  expect(String(fetch.mock.calls[0]?.[0])).toBe(`${APP_URL}config.json`);
  // No code to exchange: userinfo's connection would be opened for nothing.
  expect(document.head.querySelector('link[rel="preconnect"]')).toBeNull();
  // Signed out with no session to restore: nothing was sent but the config request.
  expect(fetch).toHaveBeenCalledTimes(1);
});

it('on a callback: the UI mounts a task later, after the preconnect link is added, and the code is exchanged', async () => {
  appStorage({ perTab: sessionStorage, perBrowser: localStorage }, appNames(CONFIG.accountUrl, CONFIG.clientId)).savePending({
    state: 'st',
    codeVerifier: 'v'.repeat(43),
    nonce: 'n',
    returnTo: '/',
    silent: false,
    createdAt: Date.now(),
  });
  setPageUrl(`${APP_URL}?code=c0de&state=st&iss=${encodeURIComponent(CONFIG.accountUrl)}`);
  const exchanged = vi.fn<(form: string) => void>();
  const fetch = vi.fn<(input: RequestInfo | URL) => Promise<Response>>(async (input) => {
    if (input instanceof Request && input.url.endsWith('/connect/token')) {
      exchanged(await input.text());
      return new Promise<Response>(() => {});
    }
    return json(CONFIG);
  });
  vi.stubGlobal('fetch', fetch);
  await import('./main');
  // A stranger's start page mounts within microtasks (above); this page waits for a task first.
  for (let turn = 0; turn < 10_000; turn++) await Promise.resolve();
  expect(document.querySelector('main')).toBeNull();
  await vi.waitFor(() => expect(document.querySelector('main')).not.toBeNull());
  expect(document.head.querySelector('link[rel="preconnect"]')?.getAttribute('href')).toBe(CONFIG.authUrl);
  // The engine's module loads first (slowly under a loaded test run); an exchange left for later would
  // reach the real network once this test has unstubbed fetch.
  await vi.waitFor(() => expect(exchanged).toHaveBeenCalledTimes(1), { timeout: 10_000 });
  expect(new URLSearchParams(exchanged.mock.calls[0][0]).get('code')).toBe('c0de');
});

it('with a config.json that lacks a setting: the configuration error page names it, and no app starts', async () => {
  const { clientId: _dropped, ...broken } = CONFIG;
  await boot(broken);
  expect(await screen.findByRole('heading', { name: 'This app is not configured correctly' })).toBeTruthy();
  expect(document.querySelector('[data-config-key]')?.textContent).toBe('clientId');
  expect(screen.queryByRole('navigation')).toBeNull();
});

describe('the idle warning', () => {
  // A stand-in that shows it was mounted: the real dialog renders nothing until a warning.
  beforeEach(() => {
    vi.doMock('./components/IdleDialog.svelte', async () => ({ default: (await import('./routes/NotFound.svelte')).default }));
    return () => vi.doUnmock('./components/IdleDialog.svelte');
  });

  it('is mounted beside the app when config.json sets idleTimeoutMs', async () => {
    await boot({ ...CONFIG, idleTimeoutMs: 600_000, idleWarnMs: 60_000 });
    expect(await screen.findByRole('heading', { name: 'Welcome' })).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeTruthy();
  });

  it('is not loaded without it', async () => {
    await boot(CONFIG);
    expect(await screen.findByRole('heading', { name: 'Welcome' })).toBeTruthy();
    await vi.dynamicImportSettled();
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull();
  });
});

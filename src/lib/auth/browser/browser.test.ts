// The real browser port: what createAuth uses when no fake is passed in.
import { afterEach, expect, it, vi } from 'vitest';
import { realBrowser } from './browser';

const channels: BroadcastChannel[] = [];
const port = () => realBrowser();
afterEach(() => channels.splice(0).forEach((channel) => channel.close()));

it('reads the page URL, the two storages and the clock, and opens the named broadcast channel of the browser', () => {
  const p = port();
  expect(p.url()).toBe(location.href);
  expect(p.perTab).toBe(sessionStorage);
  expect(p.perBrowser).toBe(localStorage);
  expect(Math.abs(p.now() - Date.now())).toBeLessThan(1000);
  const channel = p.channel('auth ["https://id.example","spa"]') as BroadcastChannel;
  channels.push(channel);
  expect(channel).toBeInstanceOf(BroadcastChannel);
  expect(channel.name).toBe('auth ["https://id.example","spa"]');
  expect(p.reloaded()).toBe(false);
});

it('navigates top-level with assign, or with replace for entries Back should skip', () => {
  const assign = vi.spyOn(location, 'assign').mockImplementation(() => {});
  const replace = vi.spyOn(location, 'replace').mockImplementation(() => {});
  const p = port();
  p.go('https://id.example/authorize');
  p.go('https://id.example/authorize?prompt=none', true);
  expect(assign).toHaveBeenCalledExactlyOnceWith('https://id.example/authorize');
  expect(replace).toHaveBeenCalledExactlyOnceWith('https://id.example/authorize?prompt=none');
});

it('has no way to navigate within the app: the app owns its routes', () => {
  expect(port()).not.toHaveProperty('navigate');
});

it('rewrites the URL without a new history entry', () => {
  const entries = history.length;
  port().rewrite(`${location.origin}/?x=1#/here`);
  expect(location.href).toBe(`${location.origin}/?x=1#/here`);
  expect(history.length).toBe(entries);
});

it('has no channel where the browser has no BroadcastChannel', () => {
  vi.stubGlobal('BroadcastChannel', undefined);
  try {
    expect(port().channel('auth')).toBeUndefined();
  } finally {
    vi.unstubAllGlobals();
  }
});

it('says a load is a reload only when the navigation entry says so', () => {
  const entries = vi.spyOn(performance, 'getEntriesByType');
  entries.mockReturnValue([{ type: 'reload' } as PerformanceNavigationTiming]);
  expect(port().reloaded()).toBe(true);
  entries.mockReturnValue([{ type: 'back_forward' } as PerformanceNavigationTiming]);
  expect(port().reloaded()).toBe(false);
  entries.mockReturnValue([]);
  expect(port().reloaded()).toBe(false);
});

it("listens at window, where document's events pass too (visibilitychange, resume, which does not bubble), until the remover runs", () => {
  const p = port();
  const onOnline = vi.fn();
  const onVisible = vi.fn();
  const onResume = vi.fn();
  const removers = [p.listen('online', onOnline), p.listen('visibilitychange', onVisible), p.listen('resume', onResume)];
  const fire = () => {
    window.dispatchEvent(new Event('online'));
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    document.dispatchEvent(new Event('resume'));
  };
  fire();
  for (const remove of removers) remove();
  fire();
  expect(onOnline).toHaveBeenCalledTimes(1);
  expect(onVisible).toHaveBeenCalledTimes(1);
  expect(onResume).toHaveBeenCalledTimes(1);
});

it('listens to input passively, as the idle watch only notes it: scrolling is never held up', () => {
  const add = vi.spyOn(window, 'addEventListener');
  const listener = vi.fn();
  const remove = port().listen('wheel', listener, { passive: true });
  expect(add).toHaveBeenCalledExactlyOnceWith('wheel', listener, { passive: true, capture: true });
  window.dispatchEvent(new Event('wheel'));
  remove();
  window.dispatchEvent(new Event('wheel'));
  expect(listener).toHaveBeenCalledTimes(1);
});

it("opens the app's shared worker by its name, kept alive after the last page where the browser can, as a module", () => {
  const opened: [URL, { name?: string; type?: string; extendedLifetime?: boolean }][] = [];
  vi.stubGlobal(
    'SharedWorker',
    class {
      port = {};
      constructor(url: URL, options: { name?: string }) {
        opened.push([url, options]);
      }
    },
  );
  try {
    const worker = port().sharedWorker('auth {"clientId":"spa"}');
    expect(worker).toHaveProperty('port');
    expect(opened).toHaveLength(1);
    const [url, options] = opened[0];
    expect(url.pathname).toMatch(/host\/worker\.ts$/);
    expect(options).toEqual({ name: 'auth {"clientId":"spa"}', extendedLifetime: true, type: 'module' });
  } finally {
    vi.unstubAllGlobals();
  }
});

it('has no shared worker where the browser has none: the engine runs in the page', () => {
  vi.stubGlobal('SharedWorker', undefined);
  try {
    expect(port().sharedWorker('auth {}')).toBeUndefined();
  } finally {
    vi.unstubAllGlobals();
  }
});

it("holds its pages' locks with the browser's Web Locks", () => {
  expect(port().locks).toBe(navigator.locks);
});

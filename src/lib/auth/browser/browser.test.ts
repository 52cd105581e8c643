// The real browser port: what createAuth uses when no fake is passed in.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { realBrowser, type FrameEvent } from './browser';

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

describe('the hidden frame', () => {
  afterEach(() => document.querySelectorAll('iframe').forEach((frame) => frame.remove()));

  /** Opens a frame of nothing (happy-dom loads no page) and returns it with what it reported. */
  function open() {
    const events: FrameEvent[] = [];
    const remove = port().frame('about:blank', 'auth frame ["https://id.example","spa"]', (event) => events.push(event));
    const frame = document.querySelector('iframe')!;
    // The frame's window, as a loaded page of this origin has it (happy-dom loads none).
    const inner = { location: { origin: location.origin } };
    Object.defineProperty(frame, 'contentWindow', { configurable: true, get: () => inner });
    return { frame, events, remove };
  }

  it('is hidden from every reader, named as asked, and sandboxed: scripts, its own origin, nothing more', () => {
    const { frame } = open();
    expect(frame.name).toBe('auth frame ["https://id.example","spa"]');
    expect(frame.hidden).toBe(true);
    expect(frame.tabIndex).toBe(-1);
    expect(frame.getAttribute('aria-hidden')).toBe('true');
    expect([...frame.sandbox].sort()).toEqual(['allow-same-origin', 'allow-scripts']);
  });

  it("takes messages only from that frame's window and this origin; removed, it takes none and leaves the page", () => {
    const { frame, events, remove } = open();
    const post = (source: unknown, origin: string) =>
      window.dispatchEvent(new MessageEvent('message', { data: { state: 's' }, source: source as Window, origin }));
    post(frame.contentWindow, location.origin);
    post(window, location.origin);
    post(frame.contentWindow, 'https://evil.example');
    expect(events).toEqual([{ type: 'message', data: { state: 's' } }]);
    remove();
    post(frame.contentWindow, location.origin);
    expect(events).toHaveLength(1);
    expect(document.querySelector('iframe')).toBeNull();
  });

  it("a document of another origin loading in it is `blocked`; this origin's is not", () => {
    const { frame, events } = open();
    frame.dispatchEvent(new Event('load'));
    expect(events).toEqual([]);
    // The browser's page for a refused frame, or the provider's own page: its location cannot be read.
    Object.defineProperty(frame, 'contentWindow', {
      configurable: true,
      get: () => ({
        get location() {
          throw new DOMException('Blocked a frame with origin', 'SecurityError');
        },
      }),
    });
    frame.dispatchEvent(new Event('load'));
    expect(events).toEqual([{ type: 'blocked' }]);
  });

  it('a top-level page is in no frame; a framed one posts to its parent at its own origin only', () => {
    expect(port().frameName()).toBeUndefined();
    const post = vi.spyOn(window.parent, 'postMessage').mockImplementation(() => {});
    port().toParent({ state: 's' });
    expect(post).toHaveBeenCalledExactlyOnceWith({ state: 's' }, location.origin);
  });
});

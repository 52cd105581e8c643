// The session policy createAuth and the test kit share (core.ts), over a real session, vault and
// auth.fetch and a scripted network: how a session begins and ends, what sign-out hands over for
// revocation, what loads only when an API is first called, resources that follow the session, the
// relay to the app's other tabs behind the same lazy seam, and settled(), which a load awaits: on its
// own, then through an instance over the fake identity service. (On a server: ssr.test.ts.)
import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { noSession, useAuthHarness } from '../../testing/auth-harness';
import { API_URL, APP_URL, FakeBroadcastChannel, FakeLocks, json, setPageUrl } from '../../testing/fake-idp';
import { createCore, type CoreParts } from './core';
import type { Network } from './protocol/http';
import * as later from './tabs/later';
import type { BrowserPort } from './browser/port';
import type { Server, TokenSet } from './protocol/steps';
import { sessionState } from './svelte/session';
import { appNames, appStorage } from './browser/storage';

// What follows the first paint, as it is, with its auth.fetch factory watched.
vi.mock(import('./tabs/later'), async (importOriginal) => {
  const real = await importOriginal();
  return { ...real, createAuthFetch: vi.fn(real.createAuthFetch) };
});

const API = 'https://api.example.test';
const ALICE = { sub: 'alice', name: 'Alice' };
let now: number;

beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000_000;
  vi.mocked(later.createAuthFetch).mockClear();
});
afterEach(() => {
  vi.useRealTimers();
  FakeBroadcastChannel.reset();
});

const tokens = (n: number, expiresIn = 300_000): TokenSet => ({
  accessToken: `at-${n}`,
  idToken: `id-${n}`,
  expiresAt: now + expiresIn,
  subject: ALICE.sub,
});

/** What a view reads once alice signed in with tokens(1). */
const aliceSignedIn = () => ({
  status: 'signed-in',
  user: ALICE,
  expiresAt: now + 300_000,
  error: null,
  known: true,
  offline: false,
});

function setup(more: Partial<CoreParts<typeof ALICE>> = {}) {
  const network = vi.fn<Network>(async (request) => Response.json({ sentWith: request.headers.get('authorization') }));
  const core = createCore<typeof ALICE>({
    client: { client_id: 'spa' },
    network,
    timeoutMs: 1000,
    scope: 'openid',
    allowed: () => [`${API}/`],
    base: () => 'https://app.example.test/',
    now: () => now,
    initial: sessionState('signed-out'),
    ...more,
  });
  return { core, network, session: () => core.state.session.current };
}

/** Whether `promise` has resolved after the pending promise turns, and with what. */
async function peek<T>(promise: Promise<T>): Promise<{ value?: T; resolved: boolean }> {
  let out: { value?: T; resolved: boolean } = { resolved: false };
  void promise.then((value) => (out = { value, resolved: true }));
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
  return out;
}

describe('a session begins and ends', () => {
  it("signedIn shows the person and the tokens' expiry; auth.fetch sends its access token", async () => {
    const { core, session } = setup();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    expect(session()).toEqual(aliceSignedIn());
    expect(await (await core.fetch(`${API}/x`)).json()).toEqual({ sentWith: 'Bearer at-1' });
  });

  it('signOut shows nobody and returns the tokens it held for revocation, once; nothing can use them afterwards', async () => {
    const { core, network, session } = setup();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    expect(core.signOut('user')).toEqual(tokens(1));
    expect(session()).toEqual(noSession('signed-out'));
    expect(core.signOut('user')).toBeUndefined();
    await expect(core.fetch(`${API}/x`)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(network).not.toHaveBeenCalled();
  });

  it('a session that ended on its own shows it expired; signOut still returns its tokens for revocation, once', async () => {
    const { core, session } = setup();
    const held = tokens(1, 10_000);
    core.signedIn({ tokens: held, scope: 'openid' }, ALICE);
    now += 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(session()).toMatchObject({ status: 'expired', user: null, error: { code: 'session_expired' } });
    await expect(core.fetch(`${API}/x`)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(core.signOut('user')).toEqual(held);
    expect(session().status).toBe('signed-out');
    expect(core.signOut('user')).toBeUndefined();
  });

  it("a new sign-in after an ended session: signOut returns the new session's tokens, never the ended one's", async () => {
    const { core } = setup();
    core.signedIn({ tokens: tokens(1, 10_000), scope: 'openid' }, ALICE);
    now += 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    core.signedIn({ tokens: tokens(2), scope: 'openid' }, ALICE);
    expect(core.signOut('user')?.accessToken).toBe('at-2');
    expect(core.signOut('user')).toBeUndefined();
  });
});

describe('what loads after the first paint', () => {
  it('auth.fetch is made on its first call, once: not with the core, nor when the rest has loaded', async () => {
    const { core } = setup();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    // What follows the first paint has loaded (the tabs load it once the page settles).
    await core.later();
    await vi.dynamicImportSettled();
    expect(later.createAuthFetch).not.toHaveBeenCalled();
    await core.fetch(`${API}/a`);
    await core.fetch(`${API}/b`);
    expect(later.createAuthFetch).toHaveBeenCalledTimes(1);
  });

  it("the first call's auth.fetch keeps the allow-list: another origin is refused, and nothing is sent", async () => {
    const { core, network } = setup();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    await expect(core.fetch('https://elsewhere.example.test/x')).rejects.toMatchObject({ code: 'forbidden_origin' });
    // A relative URL resolves against the page, which is not an allowed origin.
    await expect(core.fetch('/x')).rejects.toMatchObject({ code: 'forbidden_origin' });
    expect(network).not.toHaveBeenCalled();
  });

  it('later() loads the module once, whoever asks', async () => {
    const { core } = setup();
    expect(core.later()).toBe(core.later());
    expect((await core.later()).connectTabs).toBe(later.connectTabs);
  });
});

describe('resources', () => {
  it('follow the session: nothing while signed out, loaded with the token when signed in, gone at sign-out', async () => {
    const { core, network } = setup();
    const resource = core.resource<{ sentWith: string }>(`${API}/items`);
    const stop = resource.subscribe(() => {});
    expect(get(resource).status).toBe('unauthenticated');
    expect(network).not.toHaveBeenCalled();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    await vi.waitFor(() => expect(resource.current).toEqual({ status: 'ok', data: { sentWith: 'Bearer at-1' }, error: null }));
    core.signOut('user');
    expect(resource.current).toEqual({ status: 'unauthenticated', data: null, error: null });
    stop();
  });
});

describe("the app's other tabs", () => {
  const ISSUER = 'https://id.example.test';
  const NAMES = appNames(ISSUER, 'spa');

  /** The tabs' parts as createAuth hands them over: a page with a channel, and a token endpoint that renews. */
  function withTabs() {
    const port = {
      url: () => APP_URL,
      go: vi.fn(),
      rewrite: vi.fn(),
      perTab: sessionStorage,
      perBrowser: localStorage,
      channel: vi.fn((name: string) => new FakeBroadcastChannel(name)),
      locks: new FakeLocks(),
      now: () => now,
      reloaded: () => false,
      listen: () => () => {},
    } satisfies BrowserPort;
    const token = vi.fn<Network>(async () => json({ access_token: 'at-2', token_type: 'Bearer', expires_in: 300 }));
    const server: Server = {
      as: { issuer: ISSUER, token_endpoint: `${ISSUER}/token` },
      client: { client_id: 'spa' },
      redirectUri: APP_URL,
      scope: 'openid',
      resources: [],
      timeoutMs: 1000,
      network: token,
    };
    const tabs = {
      port: () => port,
      names: NAMES,
      storage: () => appStorage(port, NAMES),
      server,
      apis: [],
      dpop: false,
      signOut: vi.fn(),
      showIdle: vi.fn(),
    };
    return { ...setup({ tabs }), port, token };
  }
  const renewable = () => ({ ...tokens(1), refreshToken: 'rt-1' });

  it('without them: no relay, and a session with a refresh token ends at expiry, with no grant', async () => {
    const { core, network, session } = setup();
    expect(await core.tabs()).toBeUndefined();
    core.signedIn({ tokens: renewable(), scope: 'openid' }, ALICE);
    now += 300_000;
    await vi.advanceTimersByTimeAsync(300_000);
    expect(session().status).toBe('expired');
    expect(network).not.toHaveBeenCalled();
  });

  it("with them: connected once, on the app's channel, whoever asks", async () => {
    const { core, port } = withTabs();
    expect(core.joined()).toBeUndefined();
    const [first, second] = await Promise.all([core.tabs(), core.tabs()]);
    expect(first).toBe(second);
    expect(core.joined()).toBe(first);
    expect(port.channel).toHaveBeenCalledExactlyOnceWith(NAMES.channel);
  });

  it('the first renewal connects them, and its grant goes through them to the token endpoint', async () => {
    const { core, port, token, session } = withTabs();
    core.signedIn({ tokens: renewable(), scope: 'openid' }, ALICE);
    expect(port.channel).not.toHaveBeenCalled();
    now += 240_000;
    await vi.advanceTimersByTimeAsync(240_000);
    expect(port.channel).toHaveBeenCalledTimes(1);
    const form = new URLSearchParams(await token.mock.calls[0][0].text());
    expect([form.get('grant_type'), form.get('refresh_token')]).toEqual(['refresh_token', 'rt-1']);
    expect(session()).toMatchObject({ status: 'signed-in', expiresAt: now + 300_000 });
    expect(await (await core.fetch(`${API}/x`)).json()).toEqual({ sentWith: 'Bearer at-2' });
  });

  it('destroy drops the session and closes the relay, connected or still loading', async () => {
    const connected = withTabs();
    await connected.core.tabs();
    connected.core.signedIn({ tokens: renewable(), scope: 'openid' }, ALICE);
    connected.core.destroy();
    expect(FakeBroadcastChannel.open.size).toBe(0);
    await expect(connected.core.fetch(`${API}/x`)).rejects.toMatchObject({ code: 'unauthenticated' });
    const loading = withTabs();
    const relay = loading.core.tabs();
    loading.core.destroy();
    await relay;
    await vi.waitFor(() => expect(FakeBroadcastChannel.open.size).toBe(0));
    expect(loading.port.channel).toHaveBeenCalledTimes(1);
  });
});

describe('settled', () => {
  it('waits while the session is loading or redirecting, and resolves with the first settled state', async () => {
    const { core } = setup({ initial: sessionState('loading') });
    const settled = core.settled();
    expect(await peek(settled)).toEqual({ resolved: false });
    core.state.redirecting();
    expect(await peek(settled)).toEqual({ resolved: false });
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    expect(await settled).toEqual(aliceSignedIn());
  });

  it('resolves at once when settled already, with the session as it is then', async () => {
    const { core } = setup();
    expect(await peek(core.settled())).toEqual({ resolved: true, value: core.state.session.current });
    core.state.expired();
    expect((await core.settled()).status).toBe('expired');
  });
});

describe('settled() through an instance', () => {
  const h = useAuthHarness();
  // The tabs answer one another within promise turns and timers: real ones here.
  beforeEach(() => vi.useRealTimers());

  it('waits for start(): before it the session is loading, and a load awaiting it would see nobody', async () => {
    const tab = h.newTab();
    const settled = tab.auth.settled();
    expect(await peek(settled)).toEqual({ resolved: false });
    await tab.auth.start();
    expect(await settled).toEqual(noSession('signed-out'));
  });

  it('resolves signed-in after a callback, asked before start() completes it; auth.fetch then carries the token', async () => {
    const authorizeUrl = await h.startSignIn({ returnTo: '/orders' });
    setPageUrl(`${APP_URL}?${h.idp.approve(authorizeUrl)}`);
    const tab = h.newTab();
    const settled = tab.auth.settled();
    const started = tab.auth.start();
    const session = await settled;
    expect(session.status).toBe('signed-in');
    expect(session.user?.name).toBe('Alice Liddell');
    expect(await (await tab.auth.fetch(API_URL)).json()).toEqual({ greeting: 'Hello, Alice Liddell' });
    expect(await started).toEqual({ returnTo: '/orders' });
  });

  it("resolves signed-in in a tab that adopts another tab's session, with no request to the provider", async () => {
    await h.signIn();
    const requests = h.idp.requests.length;
    setPageUrl(`${APP_URL}orders`);
    const tab = h.newTab();
    const settled = tab.auth.settled();
    void tab.auth.start();
    expect((await settled).status).toBe('signed-in');
    expect(h.idp.requests.length).toBe(requests);
  });

  it('resolves at once, with the session as it is, once settled; and again after every later change', async () => {
    const tab = await h.signIn();
    expect(await peek(tab.auth.settled())).toEqual({ resolved: true, value: tab.state });
    tab.auth.signOut();
    expect((await tab.auth.settled()).status).toBe('signed-out');
  });

  it('resolves with the error of a failed callback', async () => {
    const denied = h.idp.deny(await h.startSignIn());
    setPageUrl(`${APP_URL}?${denied}`);
    const tab = h.newTab();
    void tab.auth.start();
    expect(await tab.auth.settled()).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
  });

  it('stays pending while a sign-in leaves the page (redirecting), and settles when Back brings the page back', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
    const settled = tab.auth.settled();
    expect(await peek(settled)).toEqual({ resolved: false });
    // Back from the identity service, out of the back/forward cache.
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(await peek(settled)).toEqual({
      resolved: true,
      value: noSession('signed-out'),
    });
  });

  it('stays pending while a silent restore leaves the page', async () => {
    await h.signIn();
    await h.closeTabs();
    h.reloaded = true;
    const tab = h.newTab();
    const settled = tab.auth.settled();
    await tab.auth.start();
    expect(tab.state.status).toBe('redirecting');
    expect(await peek(settled)).toEqual({ resolved: false });
  });
});

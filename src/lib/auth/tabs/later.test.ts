// What loads after the first paint (later.ts): connectTabs wires a signed-in tab to the app's other
// tabs and to the page's events, over the real relay, vault and protocol step. The other tabs are a
// broadcast channel the test posts on, as any page of the origin could.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APP_URL, FakeBroadcastChannel, FakeLocks, json } from '../../../testing/fake-idp';
import type { Network } from '../protocol/http';
import type { IdleOptions } from './idle';
import { connectTabs } from './later';
import type { BrowserPort } from '../browser/port';
import type { Server } from '../protocol/steps';
import { createEvents } from '../page/events';
import { createSession } from '../svelte/session';
import { appNames, appStorage } from '../browser/storage';
import { createVault, type Held } from '../session/tokens';

const ISSUER = 'https://id.example.test';
const NAMES = appNames(ISSUER, 'spa');
const NOTES = { resource: 'https://notes.example.test/', scope: 'notes.read' };
const ALICE = { sub: 'alice' };

/** What each test made, undone after it: the tabs' listeners, timers and channels. */
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
  FakeBroadcastChannel.reset();
  localStorage.clear();
});

type Message = { type: string; id?: string; to?: string; session?: { id: string }; tokens?: { accessToken: string } };

function setup(idle?: IdleOptions) {
  const listeners = new Set<string>();
  const locks = new FakeLocks();
  const port: BrowserPort = {
    url: () => APP_URL,
    go: vi.fn(),
    rewrite: vi.fn(),
    perTab: sessionStorage,
    perBrowser: localStorage,
    channel: vi.fn((name: string) => new FakeBroadcastChannel(name)),
    locks,
    now: () => Date.now(),
    reloaded: () => false,
    listen(type, listener) {
      const key = `${type}:${listeners.size}`;
      listeners.add(key);
      window.addEventListener(type, listener);
      return () => {
        listeners.delete(key);
        window.removeEventListener(type, listener);
      };
    },
  };
  const network = vi.fn<Network>(async () => json({ access_token: 'at-notes', token_type: 'Bearer', expires_in: 300 }));
  const server: Server = {
    as: { issuer: ISSUER, token_endpoint: `${ISSUER}/token`, userinfo_endpoint: `${ISSUER}/userinfo` },
    client: { client_id: 'spa' },
    redirectUri: APP_URL,
    scope: 'openid',
    resources: [NOTES.resource],
    timeoutMs: 1000,
    network,
  };
  const state = createSession<typeof ALICE>(createEvents());
  const vault = createVault({
    client: server.client,
    now: Date.now,
    scope: server.scope,
    apis: { 'https://notes.example.test': NOTES },
    // The relay below makes every grant, as in an instance.
    grant: async () => tabs.grant,
    renewed: (tokens) => state.renewed(tokens.expiresAt),
    offline: state.offline,
    ended: (error) => state.expired(error),
    retrying: () => {},
  });
  const signedIn = (held: Held, user: typeof ALICE) => {
    vault.hold(held);
    state.signedIn(user, held.tokens.expiresAt);
  };
  const signOut = vi.fn();
  const tabs = connectTabs({
    port: () => port,
    names: NAMES,
    storage: () => appStorage(port, NAMES),
    server,
    apis: [NOTES],
    dpop: false,
    vault,
    state,
    signedIn,
    signOut,
    idle,
    showIdle: vi.fn(),
  });
  cleanup.push(() => {
    tabs.destroy();
    vault.drop();
  });

  /** Signs this tab in, as a callback does, and waits until it leads its session; returns the session's id. */
  async function signIn(): Promise<string> {
    const held = {
      tokens: { accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: Date.now() + 300_000, subject: 'alice' },
      scope: 'openid',
    };
    signedIn(held, ALICE);
    tabs.signedIn();
    await vi.waitFor(async () => expect((await locks.query()).held).toHaveLength(1));
    const offer = FakeBroadcastChannel.posted.map(({ data }) => data as Message).find((m) => m.type === 'offer');
    return offer!.session!.id;
  }

  /** Another tab of the app: what it receives, and a way to post. */
  const other = new FakeBroadcastChannel(NAMES.channel);
  const received: Message[] = [];
  other.addEventListener('message', (event) => received.push((event as MessageEvent).data));

  return { port, locks, listeners, network, state, vault, relay: tabs, signOut, signIn, other, received };
}

describe('connectTabs', () => {
  it("opens the app's own named channel, once, and speaks there for the app", async () => {
    const { port, signIn, received } = setup();
    expect(port.channel).toHaveBeenCalledExactlyOnceWith(NAMES.channel);
    await signIn();
    await vi.waitFor(() => expect(received.map((m) => m.type)).toContain('offer'));
    expect(
      FakeBroadcastChannel.posted.every(
        ({ name, data }) => name === NAMES.channel && (data as { app: string }).app === NAMES.app,
      ),
    ).toBe(true);
  });

  it('the leader makes a grant for another tab only when it is what this instance asks for one of its APIs', async () => {
    const { network, signIn, other, received } = setup();
    const id = await signIn();
    const from = 'f'.repeat(22);
    const ask = (params: Record<string, string>) => other.postMessage({ app: NAMES.app, type: 'grant', id, from, params });
    ask({ resource: 'https://evil.example.test/' });
    ask({ resource: NOTES.resource, scope: 'notes.write' });
    ask({ resource: NOTES.resource });
    ask({ resource: NOTES.resource, scope: NOTES.scope });
    await vi.waitFor(() => expect(received.filter((m) => m.type === 'granted')).toHaveLength(1));
    expect(network).toHaveBeenCalledTimes(1);
    const form = new URLSearchParams(await network.mock.calls[0][0].text());
    expect([form.get('grant_type'), form.get('refresh_token'), form.getAll('resource'), form.get('scope')]).toEqual([
      'refresh_token',
      'rt-1',
      [NOTES.resource],
      NOTES.scope,
    ]);
    expect(received.find((m) => m.type === 'granted')).toMatchObject({ to: from, tokens: { accessToken: 'at-notes' } });
  });

  it("another tab's sign-out signs this tab out, here only, without revoking again; a page back from the cache after one revokes; both for `other-tab`", async () => {
    const { signOut, signIn, other } = setup();
    const id = await signIn();
    // Storage as another tab's sign-out leaves it: signed out on purpose.
    localStorage.setItem(NAMES.key('hint'), 'out');
    window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    expect(signOut).toHaveBeenLastCalledWith(false, true, 'other-tab');
    other.postMessage({ app: NAMES.app, type: 'signed-out', id });
    await vi.waitFor(() => expect(signOut).toHaveBeenCalledTimes(2));
    expect(signOut).toHaveBeenLastCalledWith(false, false, 'other-tab');
  });

  it('with idle set it watches for input and stayActive() tells the other tabs; without, it does neither', async () => {
    const watched = setup({ timeoutMs: 600_000, warnMs: 60_000 });
    const id = await watched.signIn();
    // The page's four, and five kinds of input and four page events for the idle sign-out.
    expect(watched.listeners.size).toBe(13);
    watched.relay.stayActive();
    await vi.waitFor(() => expect(watched.received).toContainEqual(expect.objectContaining({ type: 'active', id })));
    watched.relay.destroy();
    expect(watched.listeners.size).toBe(0);

    FakeBroadcastChannel.reset();
    const plain = setup();
    await plain.signIn();
    expect(plain.listeners.size).toBe(4);
    plain.relay.stayActive();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(plain.received.filter((m) => m.type === 'active')).toEqual([]);
  });

  it('destroy closes the channel, removes the page listeners and lets go of the lock: nothing acts afterwards', async () => {
    const { port, locks, listeners, state, signOut, signIn, relay, other, received } = setup();
    const id = await signIn();
    const channel = vi.mocked(port.channel).mock.results[0].value as FakeBroadcastChannel;
    expect(listeners.size).toBe(4);
    relay.destroy();
    expect(FakeBroadcastChannel.open.has(channel)).toBe(false);
    expect(() => channel.postMessage({})).toThrow(expect.objectContaining({ name: 'InvalidStateError' }));
    expect(listeners.size).toBe(0);
    await vi.waitFor(async () => expect((await locks.query()).held).toEqual([]));
    const heard = received.length;
    localStorage.setItem(NAMES.key('hint'), 'out');
    window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    other.postMessage({ app: NAMES.app, type: 'signed-out', id });
    other.postMessage({ app: NAMES.app, type: 'ask', from: 'a'.repeat(22) });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(signOut).not.toHaveBeenCalled();
    expect(received).toHaveLength(heard);
    expect(state.session.current.status).toBe('signed-in');
  });
});

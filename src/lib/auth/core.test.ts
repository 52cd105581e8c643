// The session policy createAuth and the test kit share (core.ts), over a real session, vault and
// auth.fetch and a scripted network: how a session begins and ends, what sign-out hands over for
// revocation, what loads only when an API is first called, and resources that follow the session.
import { get } from 'svelte/store';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCore, type CoreParts } from './core';
import type { Network } from './http';
import * as later from './later';
import type { TokenSet } from './protocol';
import { sessionState } from './session';

// What follows the first paint, as it is, with its auth.fetch factory watched.
vi.mock(import('./later'), async (importOriginal) => {
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
afterEach(() => vi.useRealTimers());

const tokens = (n: number, expiresIn = 300_000): TokenSet => ({
  accessToken: `at-${n}`,
  idToken: `id-${n}`,
  expiresAt: now + expiresIn,
  subject: ALICE.sub,
});

function setup(more: Partial<CoreParts<typeof ALICE>> = {}) {
  const network = vi.fn<Network>(async (request) => Response.json({ sentWith: request.headers.get('authorization') }));
  const core = createCore<typeof ALICE>({
    client: { client_id: 'spa' },
    network,
    timeoutMs: 1000,
    scope: 'openid',
    allowed: [`${API}/`],
    base: () => 'https://app.example.test/',
    now: () => now,
    initial: sessionState('signed-out'),
    ...more,
  });
  return { core, network, session: () => core.state.session.current };
}

describe('a session begins and ends', () => {
  it("signedIn shows the person and the tokens' expiry; auth.fetch sends its access token", async () => {
    const { core, session } = setup();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    expect(session()).toEqual({ status: 'signed-in', user: ALICE, expiresAt: now + 300_000, error: null });
    expect(await (await core.fetch(`${API}/x`)).json()).toEqual({ sentWith: 'Bearer at-1' });
  });

  it('signOut shows nobody and returns the tokens it held for revocation, once; nothing can use them afterwards', async () => {
    const { core, network, session } = setup();
    core.signedIn({ tokens: tokens(1), scope: 'openid' }, ALICE);
    expect(core.signOut()).toEqual(tokens(1));
    expect(session()).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
    expect(core.signOut()).toBeUndefined();
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
    expect(core.signOut()).toEqual(held);
    expect(session().status).toBe('signed-out');
    expect(core.signOut()).toBeUndefined();
  });

  it("a new sign-in after an ended session: signOut returns the new session's tokens, never the ended one's", async () => {
    const { core } = setup();
    core.signedIn({ tokens: tokens(1, 10_000), scope: 'openid' }, ALICE);
    now += 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    core.signedIn({ tokens: tokens(2), scope: 'openid' }, ALICE);
    expect(core.signOut()?.accessToken).toBe('at-2');
    expect(core.signOut()).toBeUndefined();
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
    core.signOut();
    expect(resource.current).toEqual({ status: 'unauthenticated', data: null, error: null });
    stop();
  });
});

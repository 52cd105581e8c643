// The token-free signal between the app's hosts (signal.ts): only this app's well-formed messages are
// heard, and nothing secret is ever posted, whatever the engine behind it holds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import { FakeBroadcastChannel, NAMES } from '../__fixtures__/fake-idp';
import { appNames } from '../browser/storage';
import { openSignal, parseSignal } from './signal';

const app = NAMES.app;

describe('parseSignal', () => {
  it.each([
    [{ app, type: 'signed-out' }, { type: 'signed-out' }],
    [{ app, type: 'active' }, { type: 'active' }],
    [
      { app, type: 'signed-in', sub: 'alice-sub' },
      { type: 'signed-in', sub: 'alice-sub' },
    ],
    [
      { app, type: 'signed-in', sub: 'x'.repeat(255) },
      { type: 'signed-in', sub: 'x'.repeat(255) },
    ],
    [
      { app, type: 'signed-in', sub: 'x' },
      { type: 'signed-in', sub: 'x' },
    ],
  ])('hears %j, keeping only what it says', (data, heard) => {
    expect(parseSignal({ ...data, token: 'at-1' }, app)).toEqual(heard);
  });

  it.each([
    ["another app's", { app: appNames('https://other.test', 'demo-spa').app, type: 'signed-out' }],
    ['one without the app', { type: 'signed-out' }],
    ['a sign-in without a sub', { app, type: 'signed-in' }],
    ['an empty sub', { app, type: 'signed-in', sub: '' }],
    ['a sub over 255 characters', { app, type: 'signed-in', sub: 'x'.repeat(256) }],
    ['a sub that is not text', { app, type: 'signed-in', sub: 7 }],
    ['a sub that is a list', { app, type: 'signed-in', sub: ['alice-sub'] }],
    ['an unknown type', { app, type: 'offer' }],
    ['an unknown type with a sub', { app, type: 'offer', sub: 'alice-sub' }],
    ['text', 'signed-out'],
    ['null', null],
    ['undefined', undefined],
  ])('refuses %s', (_, data) => {
    expect(parseSignal(data, app)).toBeUndefined();
  });
});

describe('openSignal', () => {
  afterEach(() => FakeBroadcastChannel.reset());

  it("tells the app's other hosts, and hears them, but not itself nor another app", async () => {
    const here = vi.fn();
    const there = vi.fn();
    const elsewhere = vi.fn();
    const mine = openSignal(new FakeBroadcastChannel(NAMES.channel), NAMES, here);
    openSignal(new FakeBroadcastChannel(NAMES.channel), NAMES, there);
    const other = appNames('https://other.test', 'demo-spa');
    openSignal(new FakeBroadcastChannel(NAMES.channel), other, elsewhere);
    mine.signal.signedIn('alice-sub');
    mine.signal.active();
    mine.signal.signedOut();
    await vi.waitFor(() => expect(there).toHaveBeenCalledTimes(3));
    expect(there.mock.calls.map(([heard]) => heard)).toEqual([
      { type: 'signed-in', sub: 'alice-sub' },
      { type: 'active' },
      { type: 'signed-out' },
    ]);
    expect(here).not.toHaveBeenCalled();
    expect(elsewhere).not.toHaveBeenCalled();
  });

  it('closed, hears nothing more and closes its channel', async () => {
    const here = vi.fn();
    const channel = new FakeBroadcastChannel(NAMES.channel);
    const mine = openSignal(channel, NAMES, here);
    const there = openSignal(new FakeBroadcastChannel(NAMES.channel), NAMES, vi.fn());
    const removed = vi.spyOn(channel, 'removeEventListener');
    mine.close();
    expect(FakeBroadcastChannel.open.has(channel)).toBe(false);
    expect(removed).toHaveBeenCalledWith('message', expect.any(Function));
    // A message that reached the closed channel anyway (as one under way may) is not heard.
    there.signal.signedOut();
    channel.dispatchEvent(new MessageEvent('message', { data: { app, type: 'signed-out' } }));
    await vi.waitFor(() => expect(FakeBroadcastChannel.posted).toHaveLength(1));
    expect(here).not.toHaveBeenCalled();
  });

  it('without a channel, says nothing and fails nothing', () => {
    const { signal, close } = openSignal(undefined, NAMES, vi.fn());
    expect(() => (signal.signedIn('alice-sub'), signal.active(), signal.signedOut(), close())).not.toThrow();
  });
});

describe.each([
  { host: 'worker', sharedWorkers: true },
  { host: 'in-page', sharedWorkers: false },
])('what goes on the signal, in the $host host', ({ sharedWorkers }) => {
  const h = useAuthHarness();

  it('never a token: a sign-in, a renewal, activity and a sign-out post the person at most', async () => {
    h.sharedWorkers = sharedWorkers;
    h.idp.refreshTokens = true;
    h.options = { ...h.options, idle: { timeoutMs: 600_000, warnMs: 60_000 } };
    const tab = await h.signIn();
    tab.auth.stayActive();
    await tab.auth.fetch(h.options.server.userinfo_endpoint);
    tab.auth.signOut();
    await vi.waitFor(() =>
      expect(FakeBroadcastChannel.posted.map(({ data }) => (data as { type: string }).type)).toContain('signed-out'),
    );
    const secrets = h.idp.issued.flatMap((body) => [body.access_token, body.refresh_token, body.id_token]).filter(Boolean);
    const posted = JSON.stringify(FakeBroadcastChannel.posted);
    for (const secret of secrets) expect(posted).not.toContain(secret);
    for (const { data } of FakeBroadcastChannel.posted)
      expect(['app', 'type', 'sub']).toEqual(expect.arrayContaining(Object.keys(data as object)));
    expect(FakeBroadcastChannel.posted.map(({ data }) => data)).toContainEqual({ app, type: 'signed-in', sub: 'alice-sub' });
  });
});

// The idle sign-out (idle.ts) in two tabs of one session over a broadcast channel, on fake timers and
// clock: activity anywhere defers both, the warning counts down on time, staying keeps both, the end
// signs both out with one revocation, and a timer that stalled is corrected by the page's events.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBroadcastChannel } from '../../../testing/fake-idp';
import { ACTIVITY_EVERY_MS, watchIdle, type IdleState } from './idle';
import { createSession } from '../svelte/session';
import { createEvents } from '../page/events';
import { appNames } from '../browser/storage';

const NAMES = appNames('https://id.example.test', 'spa');
const SESSION = 'session-id-0123456789';
const ALICE = { sub: 'alice' };
const OPTIONS = { timeoutMs: 6000, warnMs: 3000 };

const cleanup: (() => void)[] = [];
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
  FakeBroadcastChannel.reset();
  vi.useRealTimers();
});

/** One tab: its page events, channel, session and what the watch told it. */
function tab(leading: boolean, id = SESSION) {
  const page = new EventTarget();
  const channel = new FakeBroadcastChannel(NAMES.channel);
  const state = createSession<typeof ALICE>(createEvents());
  const shown: IdleState[] = [];
  const signOut = vi.fn(() => state.signedOut());
  const watch = watchIdle({
    options: OPTIONS,
    channel,
    app: NAMES.app,
    port: {
      now: () => Date.now(),
      listen(type, listener) {
        page.addEventListener(type, listener);
        return () => page.removeEventListener(type, listener);
      },
    },
    state,
    member: () => ({ id, leading }),
    show: (next) => shown.push(next),
    signOut,
  });
  cleanup.push(watch.destroy);
  state.signedIn(ALICE, Date.now() + 3_600_000);
  const fire = (type: string) => page.dispatchEvent(new Event(type));
  return { page, channel, state, shown, signOut, watch, fire, last: () => shown.at(-1) };
}

/** Advances the clock and every timer due, with the messages they post delivered. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const idlePosts = () => FakeBroadcastChannel.posted.map(({ data }) => data as { type: string });

describe('idle sign-out across tabs', () => {
  it('warns warnMs before the end, counts down each second, and signs both tabs out with one revocation', async () => {
    const leader = tab(true);
    const follower = tab(false);
    await pass(2999);
    expect(leader.shown).toEqual([]);
    await pass(1);
    expect(leader.last()).toEqual({ warning: true, remainingMs: 3000 });
    expect(follower.last()).toEqual({ warning: true, remainingMs: 3000 });
    await pass(1000);
    expect(follower.last()).toEqual({ warning: true, remainingMs: 2000 });
    await pass(1999);
    expect(leader.state.session.current.status).toBe('signed-in');
    await pass(1);
    for (const t of [leader, follower]) {
      expect(t.state.session.current).toMatchObject({ status: 'signed-out', error: { code: 'idle_timeout' } });
      expect(t.last()).toEqual({ warning: false });
    }
    expect(leader.signOut).toHaveBeenCalledExactlyOnceWith(false, true);
    expect(follower.signOut).toHaveBeenCalledExactlyOnceWith(false, false);
  });

  it('input in one tab defers the other: one deadline from the latest activity', async () => {
    const leader = tab(true);
    const follower = tab(false);
    await pass(2000);
    follower.fire('keydown');
    await pass(2999);
    // The leader never heard a key, yet it has not reached its warning: the deadline moved.
    expect(leader.shown).toEqual([]);
    await pass(1);
    expect(leader.last()).toEqual({ warning: true, remainingMs: 3000 });
    await pass(3000);
    expect(leader.state.session.current.error?.code).toBe('idle_timeout');
    expect(follower.state.session.current.error?.code).toBe('idle_timeout');
    const active = idlePosts().filter((m) => m.type === 'active');
    expect(active.at(-1)).toEqual({ type: 'active', id: SESSION, at: 1_002_000, app: NAMES.app });
  });

  it('input is shared at most once a second however fast it comes', async () => {
    const leader = tab(true);
    await pass(0);
    const before = idlePosts().length;
    // 21 events over two seconds: one shared at each second.
    for (let i = 0; i <= 20; i++) {
      leader.fire('pointerdown');
      await pass(100);
    }
    expect(idlePosts().length - before).toBe(2000 / ACTIVITY_EVERY_MS);
  });

  it('staying during the warning ends it in both tabs and starts the time over', async () => {
    const leader = tab(true);
    const follower = tab(false);
    await pass(4000);
    expect(follower.last()).toMatchObject({ warning: true });
    leader.watch.stay();
    await pass(0);
    expect(leader.last()).toEqual({ warning: false });
    expect(follower.last()).toEqual({ warning: false });
    await pass(5999);
    expect(follower.state.session.current.status).toBe('signed-in');
    await pass(1);
    expect(follower.state.session.current.error?.code).toBe('idle_timeout');
  });

  it('the leader tells the others it revoked', async () => {
    tab(true);
    await pass(6000);
    expect(idlePosts().filter((m) => m.type === 'idle')).toEqual([{ type: 'idle', id: SESSION, revoked: true, app: NAMES.app }]);
  });

  it('a follower that gets there first leaves the revocation to the leader, which makes it once', async () => {
    // A leader whose timer is late (throttled while hidden) hears of the end from the follower.
    const leader = tab(true);
    new FakeBroadcastChannel(NAMES.channel).postMessage({ type: 'idle', id: SESSION, revoked: false, app: NAMES.app });
    await pass(0);
    expect(leader.signOut).toHaveBeenCalledExactlyOnceWith(false, true);
    await pass(10_000);
    expect(leader.signOut).toHaveBeenCalledOnce();
  });

  it('a tab told by a leader that revoked does not revoke again', async () => {
    const follower = tab(false);
    new FakeBroadcastChannel(NAMES.channel).postMessage({ type: 'idle', id: SESSION, revoked: true, app: NAMES.app });
    await pass(0);
    expect(follower.signOut).toHaveBeenCalledExactlyOnceWith(false, false);
    expect(follower.state.session.current.error?.code).toBe('idle_timeout');
  });
});

describe('stalled timers and hidden tabs', () => {
  it('a tab whose timer stalled past the deadline signs out as soon as the page comes back', async () => {
    const leader = tab(true);
    await pass(0);
    // A sleeping laptop: the clock moves, the timers do not.
    vi.setSystemTime(Date.now() + 60_000);
    leader.fire('visibilitychange');
    await pass(0);
    expect(leader.state.session.current.error?.code).toBe('idle_timeout');
  });

  it('a page event before the deadline neither signs out early nor counts as activity', async () => {
    const leader = tab(true);
    await pass(0);
    vi.setSystemTime(Date.now() + 4000);
    leader.fire('visibilitychange');
    await pass(0);
    expect(leader.state.session.current.status).toBe('signed-in');
    expect(leader.last()).toEqual({ warning: true, remainingMs: 2000 });
  });

  it('input after a stalled deadline revives nothing: it signs out', async () => {
    const leader = tab(true);
    await pass(0);
    vi.setSystemTime(Date.now() + 7000);
    leader.fire('pointerdown');
    expect(leader.state.session.current.error?.code).toBe('idle_timeout');
    expect(idlePosts().filter((m) => m.type === 'active')).toHaveLength(1);
  });
});

describe('what other pages may post', () => {
  const post = (data: object) => new FakeBroadcastChannel(NAMES.channel).postMessage({ app: NAMES.app, ...data });

  it.each([
    ['an activity in the future', { type: 'active', id: SESSION, at: 1_000_000 + 60_000 }],
    ['an activity of another session', { type: 'active', id: 'another-session-000', at: 1_004_000 }],
    ['an activity of another app', { type: 'active', id: SESSION, at: 1_004_000, app: 'other' }],
    ['a malformed activity', { type: 'active', id: SESSION, at: '1004000' }],
  ])('%s does not defer the sign-out', async (_, message) => {
    const leader = tab(true);
    await pass(4000);
    post(message);
    await pass(2000);
    expect(leader.state.session.current.error?.code).toBe('idle_timeout');
  });

  it('an idle end of another session signs nobody out', async () => {
    const leader = tab(true);
    post({ type: 'idle', id: 'another-session-000', revoked: false });
    await pass(1000);
    expect(leader.state.session.current.status).toBe('signed-in');
  });

  it('activity a moment ahead (within the skew) counts as now', async () => {
    const leader = tab(true);
    await pass(2000);
    post({ type: 'active', id: SESSION, at: Date.now() + 1500 });
    await pass(5999);
    expect(leader.state.session.current.status).toBe('signed-in');
    await pass(1);
    expect(leader.state.session.current.error?.code).toBe('idle_timeout');
  });
});

describe('the watch', () => {
  it('stops with the session, and starts over with the next', async () => {
    const leader = tab(true);
    await pass(4000);
    leader.state.signedOut();
    expect(leader.last()).toEqual({ warning: false });
    await pass(10_000);
    expect(leader.signOut).not.toHaveBeenCalled();
    leader.state.signedIn(ALICE, Date.now() + 3_600_000);
    await pass(5999);
    expect(leader.signOut).not.toHaveBeenCalled();
    await pass(1);
    expect(leader.signOut).toHaveBeenCalledOnce();
  });

  it('destroy() removes its listeners and timers', async () => {
    const leader = tab(true);
    await pass(0);
    leader.watch.destroy();
    await pass(60_000);
    leader.fire('pointerdown');
    expect(leader.signOut).not.toHaveBeenCalled();
    expect(leader.state.session.current.status).toBe('signed-in');
  });
});

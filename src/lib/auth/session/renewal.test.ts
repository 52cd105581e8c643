// Renewal on its own (renewal.ts), over a fake clock and scripted collaborators: when each way of
// renewing begins, what a renewal's answer is worth once the session ended, and how a hidden frame's
// failures end or wait. The vault's tests (tokens.test.ts) and the frames' (frames.test.ts) drive it
// through the session; these pin what they cannot see from there.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthError } from '../protocol/errors';
import type { TokenSet } from '../protocol/steps';
import { createRenewal, NO_PAGE, type RenewalParts } from './renewal';

const MINUTE = 60_000;
let now: number;

beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000_000;
  vi.setSystemTime(now);
});
afterEach(() => vi.useRealTimers());

/** Moves the fake clock and `now` together. */
async function wait(ms: number) {
  now += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

const tokenSet = (n: number, lifeMs: number, refreshToken: string | undefined = `rt-${n}`): TokenSet => ({
  accessToken: `at-${n}`,
  refreshToken,
  expiresAt: now + lifeMs,
  subject: 'alice',
});

/** A renewal over `held` tokens, its collaborators spies (`parts`), `more` in their place. */
function setup(more: Partial<RenewalParts> = {}) {
  let held: TokenSet | undefined;
  let life = new AbortController();
  const parts = {
    now: () => now,
    tokens: () => held,
    signal: () => life.signal,
    canGrant: true,
    refresh: vi.fn(async () => (held = tokenSet(2, 10 * MINUTE))),
    keep: vi.fn((tokens: TokenSet) => (held = tokens)),
    end: vi.fn(() => (held = undefined)),
    offline: vi.fn(),
    retrying: vi.fn(),
    ending: vi.fn(),
  };
  const renewal = createRenewal({ ...parts, ...more });
  return {
    parts,
    renewal,
    /** A new session with `tokens`, planned as a sign-in plans it. */
    hold(tokens: TokenSet) {
      held = tokens;
      renewal.planned(tokens, true);
    },
    /** The session ends (a sign-out): its signal aborts, its tokens go, nothing more is planned. */
    endSession() {
      life.abort();
      life = new AbortController();
      held = undefined;
      renewal.stop();
    },
  };
}

/** A frame renewal the test answers: `answer` resolves it, `fail` rejects it. */
function scriptedFrame() {
  const calls: { resolve(tokens: TokenSet): void; reject(err: unknown): void }[] = [];
  const frame = vi.fn(() => new Promise<TokenSet>((resolve, reject) => calls.push({ resolve, reject })));
  return { frame, calls };
}

describe('when a refresh-token renewal begins', () => {
  it('a long-lived token: a minute before expiry, not sooner', async () => {
    const { parts, hold } = setup();
    hold(tokenSet(1, 60 * MINUTE));
    await wait(59 * MINUTE - 1);
    expect(parts.refresh).not.toHaveBeenCalled();
    await wait(1);
    expect(parts.refresh).toHaveBeenCalledTimes(1);
  });

  it('a short-lived token: at four fifths of its life, not sooner', async () => {
    const { parts, hold } = setup();
    hold(tokenSet(1, 100_000));
    await wait(80_000 - 1);
    expect(parts.refresh).not.toHaveBeenCalled();
    await wait(1);
    expect(parts.refresh).toHaveBeenCalledTimes(1);
  });
});

describe('what a renewal is worth', () => {
  it('true when new tokens arrived; false when the access token is the same, or without a session', async () => {
    const { renewal, hold, parts } = setup();
    expect(await renewal.renew()).toBe(false);
    expect(parts.end).not.toHaveBeenCalled();
    const first = tokenSet(1, 60 * MINUTE);
    hold(first);
    expect(await renewal.renew()).toBe(true);
    parts.refresh.mockImplementationOnce(async () => first);
    hold(first);
    expect(await renewal.renew()).toBe(false);
  });

  it('renewing() is the renewal under way, for every caller, and nothing once it settled', async () => {
    let finish!: () => void;
    const { renewal, hold, parts } = setup();
    parts.refresh.mockImplementationOnce(() => new Promise<TokenSet>((resolve) => (finish = () => resolve(tokenSet(2, MINUTE)))));
    hold(tokenSet(1, 60 * MINUTE));
    expect(renewal.renewing()).toBeUndefined();
    const renewing = renewal.renew();
    expect(renewal.renewing()).toBe(renewing);
    expect(renewal.renew()).toBe(renewing);
    finish();
    await renewing;
    expect(renewal.renewing()).toBeUndefined();
  });

  it('a refresh that fails after the session ended changes nothing: not offline, not retried, not ended', async () => {
    let fail!: (err: unknown) => void;
    const { renewal, hold, parts, endSession } = setup();
    parts.refresh.mockImplementationOnce(() => new Promise<TokenSet>((_resolve, reject) => (fail = reject)));
    hold(tokenSet(1, 60 * MINUTE));
    const renewing = renewal.renew();
    endSession();
    fail(new AuthError('aborted'));
    expect(await renewing).toBe(false);
    await wait(10 * MINUTE);
    expect(renewal.offline()).toBe(false);
    for (const spy of [parts.offline, parts.retrying, parts.end]) expect(spy).not.toHaveBeenCalled();
    expect(parts.refresh).toHaveBeenCalledTimes(1);
  });
});

describe('in a hidden frame', () => {
  const noRefresh = (lifeMs: number) => tokenSet(1, lifeMs, undefined);

  /** A session without a refresh token whose frame fell due with no page open to hold it. */
  async function foundNoPage() {
    const { frame, calls } = scriptedFrame();
    const session = setup({ frame, canGrant: false });
    const tokens = noRefresh(60 * MINUTE);
    session.hold(tokens);
    await wait(55 * MINUTE);
    calls[0].reject(new AuthError('frame_refused', { reason: NO_PAGE }));
    await vi.waitFor(() => expect(session.renewal.renewing()).toBeUndefined());
    return { ...session, frame, calls, tokens };
  }

  it('begins five minutes before expiry, or at half a short life; its tokens are kept', async () => {
    const { frame, calls } = scriptedFrame();
    const { parts, hold } = setup({ frame, canGrant: false });
    hold(noRefresh(60 * MINUTE));
    await wait(55 * MINUTE - 1);
    expect(frame).not.toHaveBeenCalled();
    await wait(1);
    expect(frame).toHaveBeenCalledTimes(1);
    const renewed = tokenSet(2, 60 * MINUTE, undefined);
    calls[0].resolve(renewed);
    await vi.waitFor(() => expect(parts.keep).toHaveBeenCalledWith(renewed));

    const short = setup({ frame, canGrant: false });
    short.hold(noRefresh(4 * MINUTE));
    await wait(2 * MINUTE - 1);
    expect(frame).toHaveBeenCalledTimes(1);
    await wait(1);
    expect(frame).toHaveBeenCalledTimes(2);
  });

  it('answers that come after the session ended are dropped: tokens not kept, a failure neither retried nor announced', async () => {
    const { frame, calls } = scriptedFrame();
    const { renewal, parts, hold, endSession } = setup({ frame, canGrant: false });
    hold(noRefresh(60 * MINUTE));
    const late = renewal.renew();
    endSession();
    calls[0].resolve(tokenSet(2, 60 * MINUTE, undefined));
    expect(await late).toBe(false);
    expect(parts.keep).not.toHaveBeenCalled();

    hold(noRefresh(60 * MINUTE));
    const failing = renewal.renew();
    endSession();
    calls[1].reject(new AuthError('aborted'));
    expect(await failing).toBe(false);
    await wait(10 * MINUTE);
    for (const spy of [parts.offline, parts.retrying, parts.ending, parts.end]) expect(spy).not.toHaveBeenCalled();
    expect(frame).toHaveBeenCalledTimes(2);
  });

  it('no page to hold it: nothing is announced; the next page back renews before expiry, once', async () => {
    const { frame, calls, renewal, parts } = await foundNoPage();
    for (const spy of [parts.offline, parts.retrying, parts.ending, parts.end]) expect(spy).not.toHaveBeenCalled();
    await wait(MINUTE);
    expect(frame).toHaveBeenCalledTimes(1);
    renewal.checkDue();
    expect(frame).toHaveBeenCalledTimes(2);
    calls[1].resolve(tokenSet(2, 60 * MINUTE, undefined));
    await vi.waitFor(() => expect(parts.keep).toHaveBeenCalledTimes(1));
  });

  it('no page, then a page back after expiry: the session ends, no frame is tried', async () => {
    const { frame, renewal, parts, tokens } = await foundNoPage();
    vi.clearAllTimers();
    now = tokens.expiresAt;
    renewal.checkDue();
    expect(frame).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(parts.end).toHaveBeenCalledTimes(1));
  });

  it('no page until expiry: the session ends then, and no frame is tried again meanwhile', async () => {
    const { frame, parts, tokens } = await foundNoPage();
    await wait(tokens.expiresAt - now - 1);
    expect(parts.end).not.toHaveBeenCalled();
    await wait(1);
    expect(parts.end).toHaveBeenCalledTimes(1);
    await wait(MINUTE);
    expect(frame).toHaveBeenCalledTimes(1);
  });

  it("a frame that cannot work, tried from a page that came back: the end is announced for expiry, and a page's wake does not end it sooner", async () => {
    const { frame, calls, renewal, parts, tokens } = await foundNoPage();
    renewal.checkDue();
    calls[1].reject(new AuthError('login_required'));
    await vi.waitFor(() =>
      expect(parts.ending).toHaveBeenCalledWith(tokens.expiresAt, expect.objectContaining({ code: 'login_required' })),
    );
    renewal.checkDue();
    await wait(MINUTE);
    renewal.checkDue();
    expect(parts.end).not.toHaveBeenCalled();
    expect(frame).toHaveBeenCalledTimes(2);
    await wait(tokens.expiresAt - now);
    expect(parts.end).toHaveBeenCalledTimes(1);
  });

  it('after a frame failed, a new sign-in tries frames again; a renewal of the same session does not', async () => {
    const { frame, calls } = scriptedFrame();
    const { renewal, parts, hold } = setup({ frame, canGrant: false });
    hold(noRefresh(60 * MINUTE));
    void renewal.renew();
    calls[0].reject(new AuthError('login_required'));
    await vi.waitFor(() => expect(parts.ending).toHaveBeenCalledTimes(1));

    // The same session's tokens planned anew (not a sign-in): still no frame, the end at their expiry.
    const same = noRefresh(30 * MINUTE);
    renewal.planned(same);
    await wait(30 * MINUTE);
    expect(frame).toHaveBeenCalledTimes(1);
    expect(parts.end).toHaveBeenCalledTimes(1);

    hold(noRefresh(60 * MINUTE));
    await wait(55 * MINUTE);
    expect(frame).toHaveBeenCalledTimes(2);
  });
});

describe('checkDue', () => {
  it('without a session, or before anything is due, renews nothing', async () => {
    const { renewal, parts, hold } = setup();
    renewal.checkDue();
    hold(tokenSet(1, 60 * MINUTE));
    await wait(MINUTE);
    renewal.checkDue();
    expect(parts.refresh).not.toHaveBeenCalled();
    expect(parts.end).not.toHaveBeenCalled();
  });

  it('once due (a timer stalled in sleep), renews at once', async () => {
    const { renewal, parts, hold } = setup();
    hold(tokenSet(1, 60 * MINUTE));
    vi.clearAllTimers();
    now += 59 * MINUTE;
    renewal.checkDue();
    expect(parts.refresh).toHaveBeenCalledTimes(1);
  });
});

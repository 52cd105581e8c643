// The idle deadline (idle.ts): a point in time kept for every page of the session, warned of `warnMs`
// before, ended once; a stalled timer is corrected by the clock at the next check.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createIdleDeadline, type IdleState } from './idle';

const options = { timeoutMs: 10_000, warnMs: 3_000 };

function deadline() {
  const shown: IdleState[] = [];
  const end = vi.fn();
  const idle = createIdleDeadline({ options, now: () => Date.now(), show: (state) => shown.push(state), end });
  return { idle, shown, end };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the idle deadline', () => {
  it('warns warnMs before the end, counts down each second, and ends the session once', () => {
    const { idle, shown, end } = deadline();
    idle.begin();
    vi.advanceTimersByTime(6_999);
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(idle.state()).toEqual({ warning: true, remainingMs: 3_000 });
    vi.advanceTimersByTime(1_000);
    expect(idle.state()).toEqual({ warning: true, remainingMs: 2_000 });
    expect(end).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2_000);
    expect(end).toHaveBeenCalledTimes(1);
    // The end clears the countdown for every page.
    expect(shown.at(-1)).toEqual({ warning: false });
    vi.advanceTimersByTime(60_000);
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('activity moves the deadline and clears a warning', () => {
    const { idle, end } = deadline();
    idle.begin();
    vi.advanceTimersByTime(8_000);
    expect(idle.state().warning).toBe(true);
    idle.active();
    expect(idle.state()).toEqual({ warning: false });
    vi.advanceTimersByTime(9_999);
    expect(end).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('input after the deadline (a stalled timer) revives nothing: the next check ends the session', () => {
    const { idle, end } = deadline();
    idle.begin();
    // The laptop slept: the clock moved, the timer did not fire.
    vi.setSystemTime(Date.now() + 60_000);
    idle.active();
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('a wake after a sleep checks the clock: past the deadline it ends at once, within the warning it counts down', () => {
    const late = deadline();
    late.idle.begin();
    vi.setSystemTime(Date.now() + 10_000);
    late.idle.check();
    expect(late.end).toHaveBeenCalledTimes(1);

    const warned = deadline();
    warned.idle.begin();
    vi.setSystemTime(Date.now() + 8_500);
    warned.idle.check();
    expect(warned.idle.state()).toEqual({ warning: true, remainingMs: 1_500 });
  });

  it('stopped (the session ended), it neither warns nor ends, and activity does not restart it', () => {
    const { idle, shown, end } = deadline();
    idle.begin();
    idle.stop();
    idle.active();
    idle.check();
    vi.advanceTimersByTime(60_000);
    expect(end).not.toHaveBeenCalled();
    expect(shown).toEqual([]);
  });

  it('a new session begins a new deadline from now', () => {
    const { idle, end } = deadline();
    idle.begin();
    vi.advanceTimersByTime(9_000);
    idle.begin();
    vi.advanceTimersByTime(9_000);
    expect(end).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(end).toHaveBeenCalledTimes(1);
  });
});

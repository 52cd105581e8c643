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

describe('the idle deadline, at its edges', () => {
  it('before a session begins, shows no warning, and a wake or input neither warns nor ends', () => {
    const { idle, shown, end } = deadline();
    expect(idle.state()).toEqual({ warning: false });
    idle.check();
    idle.active();
    vi.advanceTimersByTime(60_000);
    expect(end).not.toHaveBeenCalled();
    expect(shown).toEqual([]);
  });

  it('input at the very deadline (a stalled timer) is too late: the session ends', () => {
    const { idle, end } = deadline();
    idle.begin();
    vi.setSystemTime(Date.now() + 10_000);
    idle.active();
    expect(end).toHaveBeenCalledTimes(1);
  });

  it('input a moment before the deadline still moves it', () => {
    const { idle, end } = deadline();
    idle.begin();
    vi.setSystemTime(Date.now() + 9_999);
    idle.active();
    vi.advanceTimersByTime(9_999);
    expect(end).not.toHaveBeenCalled();
  });

  it('keeps one timer at a time, however often pages report activity or wake, and none once stopped', () => {
    const { idle } = deadline();
    idle.begin();
    for (let i = 0; i < 3; i++) {
      vi.advanceTimersByTime(2_500);
      idle.active();
      idle.check();
    }
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(8_250);
    idle.check();
    expect(vi.getTimerCount()).toBe(1);
    idle.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('counts down on each whole second left after a wake between two', () => {
    const { idle, shown } = deadline();
    idle.begin();
    vi.setSystemTime(Date.now() + 8_500);
    idle.check();
    vi.advanceTimersByTime(499);
    expect(shown.at(-1)).toEqual({ warning: true, remainingMs: 1_500 });
    vi.advanceTimersByTime(1);
    expect(shown.at(-1)).toEqual({ warning: true, remainingMs: 1_000 });
  });
});

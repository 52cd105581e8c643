import { describe, expect, test } from 'vitest';
import { busyShare, parseProcStat, waitForQuiet, type CpuTimes } from './quiet';

const STAT = `cpu  4705 150 1120 16250 520 20 30 5 0 0
cpu0 2350 75 560 8125 260 10 15 2 0 0
intr 114930548 113199788 3 0 5 263 0 4 [... lots more numbers ...]
`;

describe('parseProcStat', () => {
  test('reads the aggregate line: busy is all but idle and iowait', () => {
    expect(parseProcStat(STAT)).toEqual({
      busy: 4705 + 150 + 1120 + 20 + 30 + 5,
      total: 4705 + 150 + 1120 + 20 + 30 + 5 + 16250 + 520,
    });
  });

  test('an older kernel without steal still reads', () => {
    expect(parseProcStat('cpu 10 0 10 80 0 0 0\n')).toEqual({ busy: 20, total: 100 });
  });

  test('no cpu line: nothing to read (a per-CPU line alone is not the aggregate)', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('cpu0 1 2 3 4 5 6 7 8\n')).toBeUndefined();
  });
});

test('busyShare: the busy share between two readings, 0 when no time passed', () => {
  expect(busyShare({ busy: 100, total: 1000 }, { busy: 150, total: 1100 })).toBe(0.5);
  expect(busyShare({ busy: 100, total: 1000 }, { busy: 100, total: 1000 })).toBe(0);
});

/** A machine whose CPUs were busy at `shares[i]` during the i-th 50 ms step (the last share repeating). */
function machine(shares: number[]) {
  let t = 0;
  let step = 0;
  const times: CpuTimes = { busy: 0, total: 0 };
  return {
    now: () => t,
    read: async () => ({ ...times }),
    sleep: async (ms: number) => {
      const share = shares[Math.min(step++, shares.length - 1)];
      t += ms;
      times.busy += share * ms;
      times.total += ms;
    },
  };
}

describe('waitForQuiet', () => {
  test('an idle machine: quiet once one whole window is measured, not sooner', async () => {
    expect(await waitForQuiet({ ...machine([0.03]), windowMs: 250 })).toEqual({ waitedMs: 250, quiet: true });
  });

  test('waits out a busy spell, judging the last window only', async () => {
    // 300 ms fully busy, then idle: the first window without busy time ends 250 ms after it.
    const busyThenIdle = machine([1, 1, 1, 1, 1, 1, 0]);
    expect(await waitForQuiet({ ...busyThenIdle, windowMs: 250, threshold: 0.1 })).toEqual({ waitedMs: 550, quiet: true });
  });

  test('a machine that stays busy: gives up at maxMs and says so', async () => {
    expect(await waitForQuiet({ ...machine([0.5]), maxMs: 1000 })).toEqual({ waitedMs: 1000, quiet: false });
  });

  test('busy at exactly the threshold counts as quiet', async () => {
    expect(await waitForQuiet({ ...machine([0.1]), threshold: 0.1 })).toMatchObject({ quiet: true, waitedMs: 250 });
  });

  test('nothing to read (not Linux): no wait at all', async () => {
    expect(await waitForQuiet({ read: async () => undefined })).toEqual({ waitedMs: 0, quiet: true });
  });
});

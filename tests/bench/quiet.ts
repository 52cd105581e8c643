// Waiting for a quiet machine before a measured navigation. A browser that has just closed a tab, or a
// whole browser just closed, still uses the CPU for a while (the renderer's teardown, the cache's
// writes), and on this project's 2-CPU machine that work competed with the page being measured: a
// stranger's new tab opened while the warming visit's tab was still going away measured the warming
// visit's exit as much as the new tab's start. Linux only (/proc/stat); elsewhere nothing is waited for.
import { readFile } from 'node:fs/promises';

/** CPU time of all CPUs since boot, in clock ticks. */
export interface CpuTimes {
  busy: number;
  total: number;
}

/** The aggregate `cpu` line of /proc/stat (proc(5)): busy is all but idle and iowait; undefined if absent. */
export function parseProcStat(text: string): CpuTimes | undefined {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is counted in user already).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const busy = user + nice + system + irq + softirq + (steal || 0);
  return { busy, total: busy + idle + iowait };
}

/** The share (0–1) of all CPUs' time that was busy between two readings; 0 when no time passed. */
export function busyShare(from: CpuTimes, to: CpuTimes): number {
  const total = to.total - from.total;
  return total > 0 ? (to.busy - from.busy) / total : 0;
}

async function readProcStat(): Promise<CpuTimes | undefined> {
  return parseProcStat(await readFile('/proc/stat', 'utf8').catch(() => ''));
}

export interface QuietOptions {
  /** At most this share of all CPUs busy over the window counts as quiet (an idle machine reads 0.02–0.04 here). */
  threshold?: number;
  windowMs?: number;
  /** Gives up after this long, so a machine that stays busy slows the bench down instead of stopping it. */
  maxMs?: number;
  read?: () => Promise<CpuTimes | undefined>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What waitForQuiet found: how long it waited, and whether the machine was quiet then (false: it gave up). */
export interface Quiet {
  waitedMs: number;
  quiet: boolean;
}

const SAMPLE_MS = 50;

/** Resolves once all CPUs together were at most `threshold` busy over the last `windowMs`, or after `maxMs`. */
export async function waitForQuiet({
  threshold = 0.1,
  windowMs = 250,
  maxMs = 5000,
  read = readProcStat,
  now = () => performance.now(),
  sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}: QuietOptions = {}): Promise<Quiet> {
  const start = now();
  const first = await read();
  if (!first) return { waitedMs: 0, quiet: true };
  const readings = [{ at: start, times: first }];
  for (;;) {
    await sleep(SAMPLE_MS);
    const at = now();
    const times = await read();
    if (!times) return { waitedMs: at - start, quiet: true };
    readings.push({ at, times });
    // The newest reading at least a window old: the window is measured whole, never a shorter one.
    const since = readings.findLast((r) => at - r.at >= windowMs);
    if (since && busyShare(since.times, times) <= threshold) return { waitedMs: at - start, quiet: true };
    if (at - start >= maxMs) return { waitedMs: at - start, quiet: false };
  }
}

// The stranger's start: how soon a new tab of the app shows **Sign in**, the first page of most
// first visits. The app's files are cached by one earlier visit, as they are for anyone who has been
// to the site once; that visit's tab is closed, and once the machine is quiet again (quiet.ts) the
// measured page is opened as a new tab.
import type { CDPSession } from 'playwright-core';
import type { LatencyProxy } from './latency-proxy';
import { watchPages } from './page-timing';
import { withProfile } from './profile';
import { waitForQuiet, type Quiet } from './quiet';
import { writeFile } from 'node:fs/promises';
import { formatTraceSummary, sourceMapResolver, startTrace, summariseTrace, type TraceEvent } from './trace';

export interface SignedOutRun {
  /** The new tab's navigation start → the first frame showing **Sign in**, ms. */
  shown: number;
  /** The new tab's document: its response end and DOMContentLoaded, ms of the same timeline. */
  responseEnd: number;
  domContentLoaded: number;
  /** The app's scripts the stranger's two loads requested (paths, the first load's first), worker scripts included. */
  scripts: string[];
  /** The wait, after the earlier visit's tab closed, for the machine to be quiet before the new tab. */
  quiet: Quiet;
  trace?: { events: TraceEvent[]; sync: number };
}

/** One stranger: a warming visit, closed, then the app in a new tab (traced when `trace` is given). */
export async function signedOutOnce(
  appUrl: string,
  proxy: LatencyProxy | undefined,
  options: { cpu: number; waitMs: number; /** The name of the mark that aligns the trace with the page. */ trace?: string },
): Promise<SignedOutRun> {
  const origin = new URL(appUrl).origin;
  const { value, requests } = await withProfile(proxy, async (context) => {
    const reports = await watchPages(context, origin);
    const throttle = async (cdp: CDPSession) => {
      if (options.cpu > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: options.cpu });
    };
    const warm = context.pages()[0] ?? (await context.newPage());
    await warm.goto(appUrl);
    await reports.next('signin', () => true, 0, options.waitMs);
    // Whatever the scripts fetch after the first paint has to be in the cache too (and in `scripts`).
    await warm.waitForLoadState('networkidle');

    const since = reports.count();
    const tab = await context.newPage();
    await warm.close();
    // Its teardown is that visit's cost, not the new tab's: measured beside it, the new tab's figure
    // changed with how each build's page goes away.
    const quiet = await waitForQuiet();
    const cdp = await context.newCDPSession(tab);
    await throttle(cdp);
    const stopTrace = options.trace ? await startTrace(cdp) : undefined;
    await tab.goto(appUrl, { waitUntil: 'commit' });
    const opened = await reports.next('document', () => true, since, options.waitMs);
    const shown = await reports.next('signin', (r) => r.timeOrigin === opened.timeOrigin, since, options.waitMs);
    const sync = stopTrace ? await tab.evaluate((name) => performance.mark(name).startTime, options.trace!) : NaN;
    const trace = await stopTrace?.();
    const timing = await tab.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      return { responseEnd: nav.responseEnd, domContentLoaded: nav.domContentLoadedEventStart };
    });
    return { shown: shown.at, ...timing, quiet, trace: trace && { events: trace, sync } };
  });
  const scripts = requests.map((r) => new URL(r.url)).filter((u) => u.origin === origin && /\.m?js$/.test(u.pathname));
  return { ...value, scripts: [...new Set(scripts.map((u) => u.pathname))] };
}

/**
 * One extra stranger, traced (never one of the runs measured: tracing costs time itself), written
 * beside `file` as FILE.signed-out.json; returns the summary of the new tab's main thread.
 */
export async function traceSignedOut(
  appUrl: string,
  proxy: LatencyProxy | undefined,
  options: { cpu: number; waitMs: number; trace: string },
  output: { file: string; title: string; dist: string; b: boolean },
): Promise<string> {
  const file = output.file.replace(/(\.json)?$/, '.signed-out.json');
  const traced = await signedOutOnce(appUrl, proxy, options);
  const { events, sync } = traced.trace!;
  await writeFile(file, JSON.stringify({ traceEvents: events, metadata: { 'bench-signin': `signed out, ${output.title}` } }));
  const windows = [
    { name: 'navigation start → Sign in painted', from: 0, to: traced.shown },
    { name: 'navigation start → document response end', from: 0, to: traced.responseEnd },
    { name: 'document response end → DOMContentLoaded', from: traced.responseEnd, to: traced.domContentLoaded },
    { name: 'DOMContentLoaded → Sign in painted', from: traced.domContentLoaded, to: traced.shown },
  ];
  const summary = summariseTrace(events, windows, { name: options.trace, at: sync }, sourceMapResolver(output.dist));
  return [
    `Trace of one extra ${output.b ? 'B ' : ''}signed-out new tab written to ${file}.`,
    'Main thread of the new tab, ms; functions by sampled self time:',
    formatTraceSummary(summary),
  ].join('\n');
}

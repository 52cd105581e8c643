// How fast a sign-in completes at a given network distance: the built app and the local provider,
// reached through the latency proxy, in headless Chromium with a fresh regular profile per run.
// Run with `npm run bench:signin -- --rtt=50 --handshake=2 --runs=10` (tests/bench/signin.mjs turns
// the flags into BENCH_* variables). Prints figures; asserts only that every sign-in and restore worked.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE } from '../e2e/helpers';
import { signInAs } from '../support/flows';
import { startStack, type Stack } from '../support/stack';
import { startLatencyProxy, type LatencyProxy } from './latency-proxy';
import { watchPages } from './page-timing';
import { median, summary } from './stats';
import { formatWaterfall, recordWaterfall, type WaterfallRow } from './waterfall';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, got "${raw}"`);
  return value;
}

const RTT = setting('BENCH_RTT', 50);
const HANDSHAKE = setting('BENCH_HANDSHAKE', 2);
const RUNS = Math.max(1, Math.round(setting('BENCH_RUNS', 10)));
/** Per wait inside a run; generous, because a slow machine must not turn into a failure. */
const WAIT_MS = 30_000 + 40 * RTT;

interface Run {
  /** All in ms of the callback document's timeline (0 = its navigation start). */
  painted: number;
  responseEnd: number;
  fetchStart: number;
  tokenStart: number;
  userinfoEnd: number;
  /** Reload's navigation start → claims painted again. */
  restore: number;
  waterfall: WaterfallRow[];
  /** Epoch ms of the callback navigation start, the waterfall's zero. */
  zero: number;
}

const isAuthorize = (row: WaterfallRow) => row.type === 'Document' && new URL(row.url).pathname === '/connect/authorize';

async function signInOnce(stack: Stack, proxy: LatencyProxy): Promise<Run> {
  const executablePath = process.env.CHROME_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`No Chromium at ${executablePath}; set CHROME_PATH`);
  // A regular profile: Chromium ignores rel=preconnect off the record, as fresh Playwright contexts are.
  const profile = await mkdtemp(path.join(tmpdir(), 'bench-signin-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    // <-loopback> sends loopback traffic through the proxy too, so every connection pays the distance.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', `--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'],
  });
  try {
    const reports = await watchPages(context, new URL(stack.app.url).origin);
    const page = context.pages()[0] ?? (await context.newPage());
    const waterfall = await recordWaterfall(await context.newCDPSession(page));

    await page.goto(stack.app.url + '#/signin?returnTo=/profile');
    await signInAs(page, ALICE.username, ALICE.password);
    const callback = await reports.next('document', (r) => r.callback, 0, WAIT_MS);
    const painted = await reports.next('painted', (r) => r.timeOrigin === callback.timeOrigin, 0, WAIT_MS);
    const timing = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      const resource = (pathname: string) =>
        performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === pathname) as
          PerformanceResourceTiming | undefined;
      return {
        fetchStart: nav.fetchStart,
        responseEnd: nav.responseEnd,
        tokenStart: resource('/connect/token')?.startTime ?? NaN,
        userinfoEnd: resource('/connect/userinfo')?.responseEnd ?? NaN,
      };
    });
    expect([timing.tokenStart, timing.userinfoEnd].every(Number.isFinite), 'token and userinfo in Resource Timing').toBe(true);
    const signInRows = waterfall.rows().filter((row) => row.start >= callback.timeOrigin - 1);

    // Restore: the app has tokens in memory only, so a reload costs one prompt=none round trip.
    const since = reports.count();
    const authorizeBefore = waterfall.rows().filter(isAuthorize).length;
    await page.reload({ waitUntil: 'commit' });
    const reloaded = await reports.next('document', (r) => !r.callback, since, WAIT_MS);
    const restored = await reports.next('document', (r) => r.callback, since, WAIT_MS);
    const repainted = await reports.next('painted', (r) => r.timeOrigin === restored.timeOrigin, since, WAIT_MS);
    expect(waterfall.rows().filter(isAuthorize).length - authorizeBefore, 'prompt=none round trips on reload').toBe(1);

    return {
      painted: painted.at,
      ...timing,
      restore: restored.timeOrigin + repainted.at - reloaded.timeOrigin,
      waterfall: signInRows,
      zero: callback.timeOrigin,
    };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

describe(`sign-in at ${RTT} ms RTT, ${HANDSHAKE} round-trip handshake`, () => {
  let stack: Stack;
  let proxy: LatencyProxy;
  beforeAll(async () => {
    stack = await startStack();
    proxy = await startLatencyProxy({ rttMs: RTT, handshakeRoundTrips: HANDSHAKE });
  });
  afterAll(async () => {
    await proxy?.close();
    await stack?.close();
  });

  it(`${RUNS} sign-ins and restores`, { timeout: RUNS * (3 * WAIT_MS) }, async () => {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await signInOnce(stack, proxy));

    const figure = (pick: (r: Run) => number) => summary(runs.map(pick));
    const middle = runs.find((r) => r.painted === median(runs.map((x) => x.painted)))!;
    console.log(
      [
        `bench:signin — rtt ${RTT} ms, handshake ${HANDSHAKE} round trips, ${RUNS} runs: median (min–max)`,
        `  callback navigation start → claims painted   ${figure((r) => r.painted)}`,
        `  callback response end → claims painted       ${figure((r) => r.painted - r.responseEnd)}`,
        `  token request start                          ${figure((r) => r.tokenStart)}`,
        `  userinfo response end                        ${figure((r) => r.userinfoEnd)}`,
        `  (callback request start, after the provider's redirects: ${figure((r) => r.fetchStart)})`,
        `  restore: reload → claims painted             ${figure((r) => r.restore)}  (1 prompt=none round trip)`,
        '',
        `Waterfall of the median run (ms from the callback navigation start; new = opened a new connection;`,
        `"after #n" = started only after request #n had finished):`,
        formatWaterfall(middle.waterfall, middle.zero),
      ].join('\n'),
    );
  });
});

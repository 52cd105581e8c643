// How fast a sign-in completes at a given network distance: the built app and the local provider,
// reached through the latency proxy, in headless Chromium with a fresh regular profile per run.
// Run with `npm run bench:signin -- --rtt=50 --handshake=2 --runs=10` (tests/bench/signin.mjs turns
// the flags into BENCH_* variables and, for A/B runs, prepares the builds). Prints figures, and how
// many requests each case sent to the identity service; asserts only that every sign-in, new tab and
// reload ended with the claims painted.
import { writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import type { CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE } from '../e2e/helpers';
import { consent, login } from '../support/flows';
import { startIdp, type Idp } from '../support/stack';
import type { AppServer } from '../support/static-server';
import { pairOrder } from './args.mjs';
import { serveBuild } from './app-server';
import { startLatencyProxy, type LatencyProxy } from './latency-proxy';
import type { NetRequest } from './net-log';
import { watchPages } from './page-timing';
import { withProfile } from './profile';
import { waitForQuiet, type Quiet } from './quiet';
import { signedOutOnce, traceSignedOut, type SignedOutRun } from './signed-out';
import { median, summary } from './stats';
import { formatTraceSummary, sourceMapResolver, startTrace, summariseTrace, type TraceEvent } from './trace';
import { formatWaterfall, recordWaterfall, shortUrl, type WaterfallRow } from './waterfall';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, got "${raw}"`);
  return value;
}

interface Build {
  label: string;
  dir: string;
  headers: string;
}

const RTT = setting('BENCH_RTT', 50);
const HANDSHAKE = setting('BENCH_HANDSHAKE', 2);
const RUNS = Math.max(1, Math.round(setting('BENCH_RUNS', 10)));
const CPU = Math.max(1, setting('BENCH_CPU_THROTTLING', 1));
const TRACE = process.env.BENCH_TRACE || undefined;
const BUILDS: Build[] = process.env.BENCH_BUILDS
  ? (JSON.parse(process.env.BENCH_BUILDS) as Build[])
  : [{ label: 'dist/', dir: path.resolve('dist'), headers: path.resolve('scripts/security-headers.js') }];
const AB = BUILDS.length === 2;
/** Per wait inside a run; generous, because a slow (or throttled) machine must not turn into a failure. */
const WAIT_MS = (30_000 + 40 * RTT) * CPU;

interface Run {
  /** All in ms of the callback document's timeline (0 = its navigation start). */
  painted: number;
  fetchStart: number;
  responseEnd: number;
  /** The first subresource request the callback document made. */
  firstRequest: number;
  /**
   * The last script that arrived before the token request: the one that sent it. This and the token's
   * and userinfo's times are NaN when the page did not send them (a shared worker did: its requests
   * are not in the page's Resource Timing).
   */
  scriptEnd: number;
  tokenStart: number;
  tokenEnd: number;
  userinfoStart: number;
  userinfoEnd: number;
  /** Reload's navigation start → claims painted again. */
  restore?: number;
  /** A new tab beside the signed-in one: its navigation start → claims painted. */
  newTab?: number;
  /** The requests each case sent to the identity service, from pages and workers alike. */
  idp?: Record<'callback' | 'newTab' | 'restore', NetRequest[]>;
  newTabWaterfall?: { rows: WaterfallRow[]; zero: number };
  restoreWaterfall?: { rows: WaterfallRow[]; zero: number };
  /** The waits for a quiet machine before the new tab and before the reload (tests/bench/quiet.ts). */
  quiet?: Record<'newTab' | 'restore', Quiet>;
  waterfall: WaterfallRow[];
  /** Epoch ms of the callback navigation start, the waterfall's zero. */
  zero: number;
  trace?: { events: TraceEvent[]; sync: number };
}

/** The figure A/B compares: the app's own part of the sign-in, without the provider's redirects before it. */
const callbackToClaims = (r: Run) => r.painted - r.fetchStart;

/** The stretches of the callback document's timeline the issue asks about, in the order they happen. */
const SEGMENTS: [string, (r: Run) => { from: number; to: number }][] = [
  ['document end → first subresource request', (r) => ({ from: r.responseEnd, to: r.firstRequest })],
  ['script response end → token request', (r) => ({ from: r.scriptEnd, to: r.tokenStart })],
  ['token response end → userinfo request', (r) => ({ from: r.tokenEnd, to: r.userinfoStart })],
  ['userinfo response end → claims painted', (r) => ({ from: r.userinfoEnd, to: r.painted })],
];
const length = (window: (r: Run) => { from: number; to: number }) => (r: Run) => window(r).to - window(r).from;

const SYNC_MARK = 'bench:sync';

/**
 * The floor under the signed-out figure: the same new tab to a page with the start page's words and
 * button and nothing else (tests/bench/floor/), served with the measured build's headers, and with
 * them but Cross-Origin-Opener-Policy. No build paints its Sign in sooner than the first; the gap to
 * the second is what the browser's process swap for that header costs a new tab.
 */
const FLOOR_DIR = path.resolve('tests/bench/floor');
const COOP = 'Cross-Origin-Opener-Policy';
interface Floor {
  headers: number;
  withoutCoop: number;
}

/**
 * The requests among `requests` to the identity service's origins that started in [from, to): its
 * endpoints, not the browser's CORS preflights (a count of what the app asked for).
 */
function idpRequests(idp: Idp, requests: NetRequest[], from: number, to = Infinity): NetRequest[] {
  const origins = [idp.accountUrl, idp.authUrl].map((url) => new URL(url).origin);
  return requests.filter((r) => origins.includes(new URL(r.url).origin) && r.method !== 'OPTIONS' && r.at >= from && r.at < to);
}

async function signInOnce(
  app: AppServer,
  idp: Idp,
  proxy: LatencyProxy | undefined,
  options: { restore: boolean; trace: boolean },
): Promise<Run> {
  const { value, requests } = await withProfile(proxy, async (context) => {
    const reports = await watchPages(context, new URL(app.url).origin);
    const page = context.pages()[0] ?? (await context.newPage());
    const cdp: CDPSession = await context.newCDPSession(page);
    const waterfall = await recordWaterfall(cdp);
    // Throttling follows the page's target across its navigations, provider pages included.
    if (CPU > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU });

    await page.goto(app.url + '#/signin?returnTo=/profile');
    await login(page, ALICE.username, ALICE.password);
    // Started here so the trace holds the callback path and little of the provider's pages.
    const stopTrace = options.trace ? await startTrace(cdp) : undefined;
    await consent(page, 'Allow');
    const callback = await reports.next('document', (r) => r.callback, 0, WAIT_MS);
    const painted = await reports.next('painted', (r) => r.timeOrigin === callback.timeOrigin, 0, WAIT_MS);
    // A mark in the page's clock that the trace also records, so the two timelines can be aligned.
    const sync = stopTrace ? await page.evaluate((name) => performance.mark(name).startTime, SYNC_MARK) : NaN;
    const trace = await stopTrace?.();
    const timing = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const resource = (pathname: string) => resources.find((e) => new URL(e.name).pathname === pathname);
      const token = resource('/connect/token');
      const userinfo = resource('/connect/userinfo');
      const scripts = resources.filter(
        (e) => /\.m?js$/.test(new URL(e.name).pathname) && e.responseEnd <= (token?.startTime ?? 0),
      );
      return {
        fetchStart: nav.fetchStart,
        responseEnd: nav.responseEnd,
        firstRequest: Math.min(...resources.map((e) => e.startTime)),
        scriptEnd: Math.max(...scripts.map((e) => e.responseEnd)),
        tokenStart: token?.startTime ?? NaN,
        tokenEnd: token?.responseEnd ?? NaN,
        userinfoStart: userinfo?.startTime ?? NaN,
        userinfoEnd: userinfo?.responseEnd ?? NaN,
      };
    });
    expect(Number.isFinite(timing.fetchStart + timing.responseEnd + timing.firstRequest), 'the callback in Resource Timing').toBe(
      true,
    );
    const run: Run = {
      painted: painted.at,
      ...timing,
      waterfall: waterfall.rows().filter((row) => row.start >= callback.timeOrigin - 1),
      zero: callback.timeOrigin,
      trace: trace && { events: trace, sync },
    };
    if (!options.restore) return { run, marks: undefined };

    // A new tab beside the signed-in one: it can take the session from it instead of the provider. Opened
    // once the machine is quiet, as a person opens one some time after signing in: what the sign-in
    // left running (each build its own) is not the new tab's cost.
    const newTabQuiet = await waitForQuiet();
    const opening = reports.count();
    const newTabAt = Date.now();
    const tab = await context.newPage();
    const tabCdp = await context.newCDPSession(tab);
    const tabWaterfall = await recordWaterfall(tabCdp);
    if (CPU > 1) await tabCdp.send('Emulation.setCPUThrottlingRate', { rate: CPU });
    await tab.goto(app.url + '#/profile', { waitUntil: 'commit' });
    const opened = await reports.next('document', () => true, opening, WAIT_MS);
    // Painted in that document, or in a callback after a silent restore (an app without shared sessions).
    const shown = await reports.next('painted', () => true, opening, WAIT_MS);
    const newTabWaterfall = { rows: tabWaterfall.rows(), zero: opened.timeOrigin };
    await tab.close();

    // A lone tab's reload. Tokens live in memory only: either something that outlives the page (a
    // shared worker's session) still holds them, or the page restores them from the provider with a
    // silent prompt=none round trip and paints in its callback document. Either way: reload → claims.
    // Once the closed tab has gone away, as for the new tab.
    const restoreQuiet = await waitForQuiet();
    const since = reports.count();
    const rowsBefore = waterfall.rows().length;
    const reloadAt = Date.now();
    await page.reload({ waitUntil: 'commit' });
    const reloaded = await reports.next('document', (r) => !r.callback, since, WAIT_MS);
    const repainted = await reports.next('painted', () => true, since, WAIT_MS);
    return {
      run: {
        ...run,
        restore: repainted.timeOrigin + repainted.at - reloaded.timeOrigin,
        newTab: shown.timeOrigin + shown.at - opened.timeOrigin,
        newTabWaterfall,
        restoreWaterfall: { rows: waterfall.rows().slice(rowsBefore), zero: reloaded.timeOrigin },
        quiet: { newTab: newTabQuiet, restore: restoreQuiet },
      },
      marks: { newTabAt, reloadAt },
    };
  });
  const { run, marks } = value;
  if (!marks) return run;
  const sent = {
    // From the callback document's request: the provider's redirects before it are not the app's.
    callback: idpRequests(idp, requests, run.zero + run.fetchStart, marks.newTabAt),
    newTab: idpRequests(idp, requests, marks.newTabAt, marks.reloadAt),
    restore: idpRequests(idp, requests, marks.reloadAt),
  };
  return { ...run, idp: sent };
}

/** "token", "authorize", "authorize/…", ".well-known/openid-configuration": the path, without secrets. */
const endpoint = (url: string) =>
  shortUrl(url)
    .replace(/\?.*/, '')
    .replace(/^[^/]*\/(?:connect\/)?/, '');

/**
 * How many identity-service requests a case sent, per run: "0 ×12", or "3 (authorize, token,
 * userinfo) ×11, 4 (…) ×1" when runs differ.
 */
function sentLine(runs: Run[], key: keyof NonNullable<Run['idp']>): string {
  const tally = new Map<string, number>();
  for (const run of runs) {
    const sent = run.idp![key];
    const names = sent.map((r) => endpoint(r.url)).join(', ');
    const label = sent.length ? `${sent.length} (${names})` : '0';
    tally.set(label, (tally.get(label) ?? 0) + 1);
  }
  return [...tally].map(([label, n]) => `${label} ×${n}`).join(', ');
}

/** How long the runs waited for a quiet machine, and how often they gave up waiting. */
function quietFigure(waits: Quiet[]): string {
  const busy = waits.filter((w) => !w.quiet).length;
  return `${summary(waits.map((w) => w.waitedMs))}${busy ? `; ${busy} of ${waits.length} gave up, the machine staying busy` : ''}`;
}

/** quietFigure() of the waits before `key`'s navigation. */
const quietLine = (runs: Run[], key: keyof NonNullable<Run['quiet']>) => quietFigure(runs.map((r) => r.quiet![key]));

/**
 * The lazy code a stranger must never wait for: the session's shared worker and the page's client
 * of it, with the in-page engine (the chunks Vite names after host/worker.ts, host/client.ts and
 * host/in-page.ts).
 */
const ENGINE_SCRIPT = /\/assets\/(?:worker|client|in-page)-[^/]*\.js$/;

/** Which scripts a stranger's loads requested, over all runs, whether any is engine code, and the quiet waited for. */
function strangerLines(label: string, strangers: SignedOutRun[]): string[] {
  const scripts = [...new Set(strangers.flatMap((s) => s.scripts))];
  const engine = scripts.filter((path) => ENGINE_SCRIPT.test(path));
  const verdict = engine.length ? `REQUESTED engine code: ${engine.join(', ')}` : 'no worker script, no client/engine chunk';
  return [
    `  ${label}: ${verdict}`,
    `    scripts requested: ${scripts.join(', ') || 'none'}`,
    `    waited for a quiet machine before the new tab: ${quietFigure(strangers.map((s) => s.quiet))}`,
  ];
}

const r0 = (v: number) => String(Math.round(v));
const r2 = (v: number) => v.toFixed(2);

function floorLines(floors: Floor[], reference?: { name: string; values: number[] }): string[] {
  const pad = (s: string) => s.padEnd(47);
  const ratio = (pick: (f: Floor) => number) => {
    if (!reference) return '';
    const each = floors.map((f, i) => pick(f) / reference.values[i]);
    return `   ${reference.name} per pair ${r2(median(each))} (${r2(Math.min(...each))}–${r2(Math.max(...each))})`;
  };
  return [
    'Floor: the same new tab to an empty page (tests/bench/floor: the words and the button, no script or style)',
    `  ${pad("with the measured build's headers")}${summary(floors.map((f) => f.headers))}${ratio((f) => f.headers)}`,
    `  ${pad(`with them but ${COOP}`)}${summary(floors.map((f) => f.withoutCoop))}${ratio((f) => f.withoutCoop)}`,
  ];
}

function singleReport(runs: Run[], strangers: SignedOutRun[], floors: Floor[]): string {
  const figure = (pick: (r: Run) => number) => summary(runs.map(pick));
  const middle = runs.find((r) => r.painted === median(runs.map((x) => x.painted)))!;
  const newTabMiddle = runs.find((r) => r.newTab === median(runs.map((x) => x.newTab!)))!;
  const restoreMiddle = runs.find((r) => r.restore === median(runs.map((x) => x.restore!)))!;
  return [
    `  callback navigation start → claims painted   ${figure((r) => r.painted)}`,
    `  callback request start → claims painted      ${figure(callbackToClaims)}`,
    `  callback response end → claims painted       ${figure((r) => r.painted - r.responseEnd)}`,
    `  token request start                          ${figure((r) => r.tokenStart)}`,
    `  userinfo response end                        ${figure((r) => r.userinfoEnd)}`,
    `  (callback request start, after the provider's redirects: ${figure((r) => r.fetchStart)})`,
    `  restore: lone tab's reload → claims painted  ${figure((r) => r.restore!)}`,
    `  new tab beside a signed-in one → claims      ${figure((r) => r.newTab!)}`,
    `  new tab / restore                            ${r2(median(runs.map((r) => r.newTab!)) / median(runs.map((r) => r.restore!)))} (medians)`,
    `  signed out: new tab → Sign in painted        ${summary(strangers.map((s) => s.shown))}  (the app's files cached by one visit)`,
    '',
    'Identity-service requests per run (authorize, token, userinfo…; pages and shared workers; no preflights):',
    `  callback                                     ${sentLine(runs, 'callback')}`,
    `  new tab beside a signed-in one               ${sentLine(runs, 'newTab')}`,
    `  lone tab's reload                            ${sentLine(runs, 'restore')}`,
    '',
    'Waited for a quiet machine before (tests/bench/quiet.ts):',
    `  the new tab beside a signed-in one           ${quietLine(runs, 'newTab')}`,
    `  the lone tab's reload                        ${quietLine(runs, 'restore')}`,
    '',
    "A stranger's two loads (the first visit and the new tab):",
    ...strangerLines('dist', strangers),
    '',
    ...floorLines(floors),
    '',
    'Segments: median (min–max)',
    ...SEGMENTS.map(([name, window]) => `  ${name.padEnd(44)} ${figure(length(window))}`),
    '',
    `Waterfall of the median run (ms from the callback navigation start; new = opened a new connection;`,
    `"after #n" = started only after request #n had finished):`,
    formatWaterfall(middle.waterfall, middle.zero),
    '',
    'Waterfall of the median new-tab run (ms from its navigation start):',
    formatWaterfall(newTabMiddle.newTabWaterfall!.rows, newTabMiddle.newTabWaterfall!.zero),
    '',
    "Waterfall of the median restore run (ms from the reload's navigation start):",
    formatWaterfall(restoreMiddle.restoreWaterfall!.rows, restoreMiddle.restoreWaterfall!.zero),
  ].join('\n');
}

type Side = Run & { stranger: SignedOutRun };
type Pair = { a: Side; b: Side; first: 'A' | 'B'; floor: Floor };

/** What A/B compares, each a user's wait: ms from a navigation start to what the person came for. */
const CASES: [string, (r: Pair['a']) => number][] = [
  ['callback request start → claims painted', callbackToClaims],
  ['new tab beside a signed-in one → claims', (r) => r.newTab!],
  ["lone tab's reload → claims (restore)", (r) => r.restore!],
  ['signed out: new tab → Sign in painted', (r) => r.stranger.shown],
];

function abReport(pairs: Pair[]): string {
  const [A, B] = BUILDS;
  const ratios = pairs.map((p) => callbackToClaims(p.b) / callbackToClaims(p.a));
  const col = (s: string, n = 10) => s.padStart(n);
  const rows = pairs.map((p, i) =>
    [
      col(String(i + 1), 4),
      col(p.first, 6),
      col(r0(callbackToClaims(p.a))),
      col(r0(callbackToClaims(p.b))),
      col(r2(ratios[i]), 8),
    ].join(''),
  );
  const as = pairs.map((p) => p.a);
  const bs = pairs.map((p) => p.b);
  const seg = (pick: (r: Pair['a']) => number) => `${col(summary(as.map(pick)), 21)}${col(summary(bs.map(pick)), 21)}`;
  return [
    `  A = ${A.label}  (${A.dir}, headers ${A.headers})`,
    `  B = ${B.label}  (${B.dir}, headers ${B.headers})`,
    '',
    'Callback request start → claims painted, ms (fresh profile per run; "first" = which ran first):',
    `${col('pair', 4)}${col('first', 6)}${col('A')}${col('B')}${col('B/A', 8)}`,
    ...rows,
    `${col('med', 4)}${col('', 6)}${col(r0(median(as.map(callbackToClaims))))}${col(r0(median(bs.map(callbackToClaims))))}${col(r2(median(ratios)), 8)}`,
    `  median ratio B/A ${r2(median(ratios))} (min ${r2(Math.min(...ratios))}, max ${r2(Math.max(...ratios))})`,
    '',
    `Every case: median (min–max) per build, and B/A per pair: median (min–max)`,
    ...CASES.map(([name, pick]) => {
      const each = pairs.map((p) => pick(p.b) / pick(p.a));
      const spread = `${r2(median(each))} (${r2(Math.min(...each))}–${r2(Math.max(...each))})`;
      return `  ${name.padEnd(47)}${seg(pick)}${col(spread, 20)}`;
    }),
    '',
    'Identity-service requests per run (authorize, token, userinfo…; pages and shared workers; no preflights):',
    ...(['callback', 'newTab', 'restore'] as const).flatMap((key) => [
      `  ${{ callback: 'callback', newTab: 'new tab beside a signed-in one', restore: "lone tab's reload" }[key]}`,
      `    A ${sentLine(as, key)}`,
      `    B ${sentLine(bs, key)}`,
    ]),
    '',
    'Waited for a quiet machine before (tests/bench/quiet.ts):',
    ...(['newTab', 'restore'] as const).flatMap((key) => [
      `  ${{ newTab: 'the new tab beside a signed-in one', restore: "the lone tab's reload" }[key]}`,
      `    A ${quietLine(as, key)}`,
      `    B ${quietLine(bs, key)}`,
    ]),
    '',
    "A stranger's two loads (the first visit and the new tab):",
    ...(['A', 'B'] as const).flatMap((side) =>
      strangerLines(
        side,
        (side === 'A' ? as : bs).map((r) => r.stranger),
      ),
    ),
    '',
    ...floorLines(
      pairs.map((p) => p.floor),
      { name: 'floor / A signed out:', values: pairs.map((p) => p.a.stranger.shown) },
    ),
    '',
    `Per build: median (min–max)${' '.repeat(22)}${col('A', 21)}${col('B', 21)}`,
    `  ${'callback navigation start → claims painted'.padEnd(47)}${seg((r) => r.painted)}`,
    `  ${'callback request start → claims painted'.padEnd(47)}${seg(callbackToClaims)}`,
    ...SEGMENTS.map(([name, window]) => `  ${name.padEnd(47)}${seg(length(window))}`),
    '',
    `Waterfall of B's median run (ms from the callback navigation start):`,
    formatWaterfall(
      bs.find((r) => r.painted === median(bs.map((x) => x.painted)))!.waterfall,
      bs.find((r) => r.painted === median(bs.map((x) => x.painted)))!.zero,
    ),
  ].join('\n');
}

/**
 * Other processes on the machine show up as noise far larger than most changes measured here; saying
 * how busy it was tells a reader whether a ratio can be trusted.
 */
function loadNote(before: number): string {
  const cpus = availableParallelism();
  const after = loadavg()[0];
  const busy = Math.max(before, after) > cpus * 0.75;
  return `Machine load (1-min average) ${before.toFixed(1)} before, ${after.toFixed(1)} after, on ${cpus} CPUs${busy ? ': BUSY, other processes competed for the CPU; figures are noisy, repeat when it is idle' : ''}.`;
}

const title = `sign-in at ${RTT} ms RTT${RTT ? `, ${HANDSHAKE} round-trip handshake` : ' (no proxy)'}${CPU > 1 ? `, CPU ${CPU}× slower` : ''}`;

describe(title, () => {
  let idp: Idp;
  let apps: AppServer[] = [];
  let floors: AppServer[] = [];
  let proxy: LatencyProxy | undefined;
  beforeAll(async () => {
    apps = await Promise.all(BUILDS.map((b) => serveBuild(b.dir, b.headers)));
    const headers = BUILDS.at(-1)!.headers;
    floors = await Promise.all([serveBuild(FLOOR_DIR, headers), serveBuild(FLOOR_DIR, headers, [COOP])]);
    idp = await startIdp({ redirectUris: apps.map((a) => a.url) });
    const config = {
      accountUrl: idp.accountUrl,
      authUrl: idp.authUrl,
      clientId: idp.clientId,
      apiOrigins: [idp.apiUrl],
      apiUrl: idp.apiUrl + '/api/greeting',
    };
    for (const app of [...apps, ...floors]) app.setConfig(config);
    if (RTT > 0) proxy = await startLatencyProxy({ rttMs: RTT, handshakeRoundTrips: HANDSHAKE });
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.allSettled([...[...apps, ...floors].map((a) => a.close()), idp?.close()]);
  });

  const what = AB ? `${RUNS} A/B pairs of sign-ins` : `${RUNS} sign-ins and restores`;
  it(what, { timeout: (RUNS * (AB ? 10 : 6) + 3) * WAIT_MS }, async () => {
    const loadBefore = loadavg()[0];
    const head = `bench:signin — ${title}, ${RUNS} ${AB ? 'pairs' : 'runs'}`;
    let report: string;
    const floor = async (): Promise<Floor> => {
      const shown = async (server: AppServer) => (await signedOutOnce(server.url, proxy, { cpu: CPU, waitMs: WAIT_MS })).shown;
      return { headers: await shown(floors[0]), withoutCoop: await shown(floors[1]) };
    };
    if (AB) {
      const pairs: Pair[] = [];
      for (let i = 0; i < RUNS; i++) {
        const order = pairOrder(i);
        const got: Partial<Record<'A' | 'B', Side>> = {};
        for (const side of order) {
          const app = apps[side === 'A' ? 0 : 1];
          const run = await signInOnce(app, idp, proxy, { restore: true, trace: false });
          const stranger = await signedOutOnce(app.url, proxy, { cpu: CPU, waitMs: WAIT_MS });
          got[side] = { ...run, stranger };
        }
        pairs.push({ a: got.A!, b: got.B!, first: order[0], floor: await floor() });
      }
      report = abReport(pairs);
    } else {
      const runs: Run[] = [];
      const strangers: SignedOutRun[] = [];
      const floorRuns: Floor[] = [];
      for (let i = 0; i < RUNS; i++) {
        runs.push(await signInOnce(apps[0], idp, proxy, { restore: true, trace: false }));
        strangers.push(await signedOutOnce(apps[0].url, proxy, { cpu: CPU, waitMs: WAIT_MS }));
        floorRuns.push(await floor());
      }
      report = singleReport(runs, strangers, floorRuns);
    }
    console.log(`${head}\n${report}\n${loadNote(loadBefore)}`);

    if (TRACE) {
      // An extra run: tracing costs time itself, so it is never one of the runs measured above.
      const traced = await signInOnce(apps.at(-1)!, idp, proxy, { restore: false, trace: true });
      const { events, sync } = traced.trace!;
      await writeFile(TRACE, JSON.stringify({ traceEvents: events, metadata: { 'bench-signin': title } }));
      const windows = [
        { name: 'callback response end → claims painted', from: traced.responseEnd, to: traced.painted },
        ...SEGMENTS.map(([name, window]) => ({ name, ...window(traced) })),
      ].filter((w) => Number.isFinite(w.from) && Number.isFinite(w.to));
      const summary = summariseTrace(events, windows, { name: SYNC_MARK, at: sync }, sourceMapResolver(BUILDS.at(-1)!.dir));
      console.log(
        [
          `Trace of one extra ${AB ? 'B ' : ''}run written to ${TRACE} (${events.length} events; DevTools → Performance → Load profile).`,
          `Main thread of the callback document, ms; functions by sampled self time (names minified unless the build has source maps):`,
          formatTraceSummary(summary),
        ].join('\n'),
      );
    }
    if (TRACE) {
      const dist = BUILDS.at(-1)!.dir;
      const options = { cpu: CPU, waitMs: WAIT_MS, trace: SYNC_MARK };
      console.log(await traceSignedOut(apps.at(-1)!.url, proxy, options, { file: TRACE, title, dist, b: AB }));
    }
  });
});

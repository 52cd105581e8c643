// A Chromium performance trace (what DevTools' Performance panel records) of one sign-in, and a
// summary of the main-thread work between two moments of the callback document.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import type { CDPSession } from 'playwright-core';

export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  /** µs, Chromium's monotonic clock. */
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: Record<string, unknown> & { data?: Record<string, unknown> };
  id?: string | number;
}

/** The Performance panel's own categories, plus V8's sampling profiler for per-function time. */
const CATEGORIES = [
  '-*',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'disabled-by-default-devtools.timeline.stack',
  'v8.execute',
  'v8',
  'disabled-by-default-v8.compile',
  'disabled-by-default-v8.cpu_profiler',
  // 0.1 ms samples instead of 1 ms: the gaps this looks at are a few ms long.
  'disabled-by-default-v8.cpu_profiler.hires',
  'blink.user_timing',
  'loading',
  'toplevel',
  '__metadata',
];

/** Starts tracing the page's browser; the returned function stops and hands back every event. */
export async function startTrace(cdp: CDPSession): Promise<() => Promise<TraceEvent[]>> {
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (event) => events.push(...(event.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { recordMode: 'recordAsMuchAsPossible', includedCategories: CATEGORIES },
  });
  return async () => {
    const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await complete;
    return events;
  };
}

/** A stretch of the callback document's timeline, in its own ms (0 = navigation start). */
export interface TimeWindow {
  name: string;
  from: number;
  to: number;
}

export type Bucket = 'script' | 'parse' | 'compile' | 'gc' | 'style & layout' | 'paint' | 'loading' | 'other';
export const BUCKETS: Bucket[] = ['script', 'parse', 'compile', 'gc', 'style & layout', 'paint', 'loading', 'other'];

export interface WindowSummary {
  name: string;
  ms: number;
  /** Main-thread time inside tasks; the rest of the window the thread was idle (waiting). */
  busy: number;
  buckets: Record<Bucket, number>;
  /** Sampled self time per function, longest first. */
  functions: { name: string; ms: number }[];
  /** Sampled self time per source file (or script URL), longest first. */
  sources: { name: string; ms: number }[];
}

export interface TaskSummary {
  /** Page ms. */
  start: number;
  ms: number;
  /** What the task ran: the event the DevTools flame chart would show under it, and its function. */
  what: string;
  /** The function with the most sampled self time inside the task. */
  hottest?: string;
}

export interface TraceSummary {
  windows: WindowSummary[];
  /** The longest main-thread tasks overlapping the first window. */
  tasks: TaskSummary[];
}

/** Maps a position in a served script to its original source, when the build has source maps. */
export type Resolve = (url: string, line: number, column: number) => { file: string; line: number; name?: string } | undefined;

/** Which kind of main-thread work a trace event is, by its name (the Performance panel's grouping). */
export function bucketOf(name: string, cat: string): Bucket {
  if (/GC|garbage/i.test(name)) return 'gc';
  if (/^(ParseHTML|ParseAuthorStyleSheet|V8\.(ParseProgram|ParseFunction|PreParse)|HTMLDocumentParser)/.test(name))
    return 'parse';
  if (/compile|CollectSourcePositions|produceModuleCache|CompileSerialize|CacheScript|FlushInstructionCache/i.test(name)) {
    return 'compile';
  }
  if (/^(UpdateLayoutTree|Layout|RecalculateStyles|HitTest|InvalidateLayout|ScheduleStyleRecalculation)$/.test(name)) {
    return 'style & layout';
  }
  if (/^(Paint|PrePaint|Layerize|UpdateLayer|UpdateLayerTree|Commit|PaintImage|CompositeLayers)$/.test(name)) return 'paint';
  if (
    /^(FunctionCall|EvaluateScript|TimerFire|EventDispatch|FireAnimationFrame|RunMicrotasks|XHRLoad|XHRReadyStateChange)$/.test(
      name,
    ) ||
    /^v8\./i.test(name)
  ) {
    return 'script';
  }
  if (cat.split(',').includes('loading')) return 'loading';
  return 'other';
}

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface Sample {
  ts: number;
  ms: number;
  frame: Frame;
  /** For a built-in (fetch, focus…): the nearest script function on the stack, the one that called it. */
  caller?: Frame;
}

/** The V8 sampling profile of one thread as individual samples, each with the time it stands for. */
function samplesOf(events: TraceEvent[], pid: number, tid: number, urls: Map<string, string>): Sample[] {
  type Node = {
    parent?: number;
    callFrame: { functionName: string; url?: string; scriptId?: number | string; lineNumber?: number; columnNumber?: number };
  };
  const profile = events.find((e) => e.name === 'Profile' && e.pid === pid && e.tid === tid);
  if (!profile) return [];
  const nodes = new Map<number, Node>();
  const stamps: { ts: number; node: number }[] = [];
  let ts = Number((profile.args?.data as { startTime?: number } | undefined)?.startTime ?? profile.ts);
  for (const chunk of events.filter((e) => e.name === 'ProfileChunk' && e.pid === pid && e.id === profile.id)) {
    const data = chunk.args?.data as
      { cpuProfile?: { nodes?: (Node & { id: number })[]; samples?: number[] }; timeDeltas?: number[] } | undefined;
    for (const node of data?.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    const samples = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    samples.forEach((node, i) => {
      ts += deltas[i] ?? 0;
      stamps.push({ ts, node });
    });
  }
  stamps.sort((a, b) => a.ts - b.ts);
  const frameOf = (node: Node): Frame => ({
    functionName: node.callFrame.functionName,
    url: node.callFrame.url || urls.get(String(node.callFrame.scriptId)) || '',
    lineNumber: node.callFrame.lineNumber ?? -1,
    columnNumber: node.callFrame.columnNumber ?? -1,
  });
  const callerOf = (node: Node): Frame | undefined => {
    for (let up = nodes.get(node.parent ?? -1), hops = 0; up && hops < 100; up = nodes.get(up.parent ?? -1), hops++) {
      const frame = frameOf(up);
      if (frame.url) return frame;
    }
    return undefined;
  };
  return stamps.flatMap((s, i) => {
    const node = nodes.get(s.node);
    if (!node) return [];
    const frame = frameOf(node);
    // Each sample stands for the time until the next one (capped, so a pause in sampling is not blamed on it).
    const ms = Math.min(((stamps[i + 1]?.ts ?? s.ts) - s.ts) / 1000, 5);
    const builtIn = !frame.url && !frame.functionName.startsWith('(');
    return [{ ts: s.ts, ms, frame, caller: builtIn ? callerOf(node) : undefined }];
  });
}

function describeFrame(sample: Sample, resolve?: Resolve): { fn: string; source: string } {
  const { frame, caller } = sample;
  if (!frame.url) {
    // No URL: V8's own entries like (program) and (garbage collector), or a built-in such as fetch,
    // which is named with the script function that called it.
    const name = frame.functionName || '(anonymous)';
    if (name.startsWith('(')) return { fn: name, source: name };
    return {
      fn: caller ? `${name} ← ${describeFrame({ ...sample, frame: caller, caller: undefined }, resolve).fn}` : name,
      source: '(built-ins)',
    };
  }
  const original = frame.lineNumber >= 0 ? resolve?.(frame.url, frame.lineNumber, frame.columnNumber) : undefined;
  const where = original
    ? `${original.file}:${original.line}`
    : `${shortScript(frame.url)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`;
  const name = original?.name || frame.functionName || '(anonymous)';
  return { fn: `${name} ${where}`, source: original ? original.file : shortScript(frame.url) };
}

function shortScript(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.split('/').pop() || u.host;
  } catch {
    return url;
  }
}

const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms }));

/**
 * What the callback document's main thread did in each window. `sync` ties the clocks together: a
 * performance.mark named `sync.name` made at page time `sync.at` (ms).
 */
export function summariseTrace(
  events: TraceEvent[],
  windows: TimeWindow[],
  sync: { name: string; at: number },
  resolve?: Resolve,
): TraceSummary {
  const mark = events.find((e) => e.name === sync.name && e.cat.includes('blink.user_timing'));
  if (!mark) throw new Error(`the trace has no "${sync.name}" mark to align it with the page`);
  const { pid, tid } = mark;
  const toTrace = (ms: number) => mark.ts + (ms - sync.at) * 1000;
  const toPage = (ts: number) => sync.at + (ts - mark.ts) / 1000;

  const urls = new Map<string, string>();
  for (const e of events) {
    const data = e.args?.data as { scriptId?: number | string; url?: string } | undefined;
    if (data?.scriptId !== undefined && data.url) urls.set(String(data.scriptId), data.url);
  }
  const samples = samplesOf(events, pid, tid, urls);

  // Self time: sweep the nested complete events of the thread; each moment belongs to the innermost.
  const slices = events
    .filter((e) => e.ph === 'X' && e.pid === pid && e.tid === tid && (e.dur ?? 0) > 0)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const segments: { from: number; to: number; event: TraceEvent }[] = [];
  const stack: { event: TraceEvent; end: number }[] = [];
  let cursor = 0;
  const emit = (to: number) => {
    const owner = stack.at(-1);
    if (owner && to > cursor) segments.push({ from: cursor, to, event: owner.event });
    cursor = Math.max(cursor, to);
  };
  for (const e of slices) {
    while (stack.length && stack.at(-1)!.end <= e.ts) {
      emit(stack.at(-1)!.end);
      stack.pop();
    }
    emit(e.ts);
    // A child that outlives its parent (clock rounding) is cut at the parent's end.
    const end = Math.min(e.ts + (e.dur ?? 0), stack.at(-1)?.end ?? Infinity);
    stack.push({ event: e, end });
  }
  while (stack.length) {
    emit(stack.at(-1)!.end);
    stack.pop();
  }

  const tasks = slices.filter((e) => e.name === 'RunTask' && e.cat.includes('devtools.timeline'));
  const overlap = (from: number, to: number, a: number, b: number) => Math.max(0, Math.min(to, b) - Math.max(from, a));

  const summaries = windows.map((w): WindowSummary => {
    const from = toTrace(w.from);
    const to = toTrace(w.to);
    const buckets = Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
    for (const s of segments) {
      const ms = overlap(from, to, s.from, s.to) / 1000;
      if (ms > 0) buckets[bucketOf(s.event.name, s.event.cat)] += ms;
    }
    const busy = tasks.reduce((sum, t) => sum + overlap(from, to, t.ts, t.ts + (t.dur ?? 0)) / 1000, 0);
    const functions = new Map<string, number>();
    const sources = new Map<string, number>();
    for (const s of samples) {
      if (s.ts < from || s.ts >= to || s.frame.functionName === '(idle)') continue;
      const { fn, source } = describeFrame(s, resolve);
      functions.set(fn, (functions.get(fn) ?? 0) + s.ms);
      sources.set(source, (sources.get(source) ?? 0) + s.ms);
    }
    return { name: w.name, ms: w.to - w.from, busy, buckets, functions: top(functions, 10), sources: top(sources, 8) };
  });

  const first = windows[0];
  const longest = first
    ? tasks
        .filter((t) => overlap(toTrace(first.from), toTrace(first.to), t.ts, t.ts + (t.dur ?? 0)) > 0)
        .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
        .slice(0, 10)
    : [];
  const labelled = new Set([
    'FunctionCall',
    'EvaluateScript',
    'v8.evaluateModule',
    'v8.compileModule',
    'TimerFire',
    'EventDispatch',
    'FireAnimationFrame',
    'ParseHTML',
    'RunMicrotasks',
    'Layout',
    'UpdateLayoutTree',
    'Paint',
    'XHRLoad',
  ]);
  const taskSummaries = longest.map((t): TaskSummary => {
    const end = t.ts + (t.dur ?? 0);
    const inside = slices
      .filter((e) => e.ts >= t.ts && e.ts < end && labelled.has(e.name))
      .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0));
    const main = inside[0];
    const data = main?.args?.data as { functionName?: string; url?: string; lineNumber?: number; type?: string } | undefined;
    const detail =
      data?.functionName || data?.url || data?.type
        ? ` (${[data.functionName, data.type, data.url && shortScript(data.url)].filter(Boolean).join(' ')})`
        : '';
    const hot = new Map<string, number>();
    for (const s of samples) {
      // (program) is the browser's own work, which `what` already names.
      if (s.ts < t.ts || s.ts >= end || s.frame.functionName === '(idle)' || s.frame.functionName === '(program)') continue;
      const { fn } = describeFrame(s, resolve);
      hot.set(fn, (hot.get(fn) ?? 0) + s.ms);
    }
    const hottest = top(hot, 1)[0];
    return {
      start: toPage(t.ts),
      ms: (t.dur ?? 0) / 1000,
      what: main ? main.name + detail : 'RunTask',
      hottest: hottest ? `${hottest.name} ${hottest.ms.toFixed(1)} ms` : undefined,
    };
  });
  return { windows: summaries, tasks: taskSummaries };
}

export function formatTraceSummary(summary: TraceSummary): string {
  const f = (ms: number) => ms.toFixed(1).padStart(6);
  const lines: string[] = [];
  for (const w of summary.windows) {
    const kinds = BUCKETS.filter((b) => w.buckets[b] >= 0.05).map((b) => `${b} ${w.buckets[b].toFixed(1)}`);
    lines.push(`${w.name}: ${w.ms.toFixed(1)} ms, main thread busy ${w.busy.toFixed(1)} ms (${kinds.join(', ') || 'nothing'})`);
    if (w.sources.length)
      lines.push(`    by source (sampled self ms): ${w.sources.map((s) => `${s.name} ${s.ms.toFixed(1)}`).join(', ')}`);
    for (const fn of w.functions.filter((x) => x.ms >= 0.1)) lines.push(`  ${f(fn.ms)}  ${fn.name}`);
  }
  if (summary.tasks.length) {
    lines.push(`Longest main-thread tasks in "${summary.windows[0]?.name}" (start: ms from the callback navigation start):`);
    for (const t of summary.tasks) {
      lines.push(`  ${f(t.ms)} ms at ${t.start.toFixed(0).padStart(5)}  ${t.what}${t.hottest ? `; hottest: ${t.hottest}` : ''}`);
    }
  }
  return lines.join('\n');
}

/**
 * Resolves positions in the scripts of a build that has source maps (`npx vite build --sourcemap`);
 * without them the summary names minified functions by script, line and column.
 */
export function sourceMapResolver(dir: string): Resolve {
  const maps = new Map<string, SourceMap | null>();
  return (url, line, column) => {
    let file: string;
    try {
      file = path.join(dir, new URL(url).pathname);
    } catch {
      return undefined;
    }
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : null);
    }
    const entry = maps.get(file)?.findEntry(line, column) as
      { originalSource?: string; originalLine?: number; name?: string } | undefined;
    if (!entry?.originalSource) return undefined;
    const original = entry.originalSource.replace(/^.*?(node_modules\/|src\/)/, '$1');
    return { file: original, line: (entry.originalLine ?? 0) + 1, name: entry.name };
  };
}

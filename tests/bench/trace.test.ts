// The trace summary on a hand-made trace: self time per kind of work, clipped to the window, and
// sampled time per function.
import { describe, expect, it } from 'vitest';
import { bucketOf, summariseTrace, type TraceEvent } from './trace';

const MAIN = { pid: 1, tid: 1 };
const X = (name: string, ts: number, dur: number, cat = 'devtools.timeline', data?: Record<string, unknown>): TraceEvent => ({
  name,
  cat,
  ph: 'X',
  ts,
  dur,
  ...MAIN,
  args: data ? { data } : {},
});

describe('bucketOf', () => {
  it.each([
    ['FunctionCall', 'devtools.timeline', 'script'],
    ['v8.evaluateModule', 'v8,devtools.timeline', 'script'],
    ['V8.ParseFunction', 'disabled-by-default-v8.compile', 'parse'],
    ['ParseHTML', 'devtools.timeline', 'parse'],
    ['V8.CompileIgnition', 'disabled-by-default-v8.compile', 'compile'],
    ['v8.compileModule', 'v8,devtools.timeline', 'compile'],
    ['V8.GC_SCAVENGER', 'devtools.timeline,disabled-by-default-v8.gc', 'gc'],
    ['Layout', 'devtools.timeline', 'style & layout'],
    ['Paint', 'devtools.timeline', 'paint'],
    ['DocumentLoader::CommitNavigation', 'loading', 'loading'],
    ['RunTask', 'disabled-by-default-devtools.timeline', 'other'],
  ])('%s is %s work', (name, cat, bucket) => {
    expect(bucketOf(name, cat)).toBe(bucket);
  });
});

describe('summariseTrace', () => {
  // Page time 100 ms is trace time 1_000_000 µs.
  const sync = { name: 'bench:sync', at: 100 };
  const mark: TraceEvent = { name: 'bench:sync', cat: 'blink.user_timing', ph: 'R', ts: 1_000_000, ...MAIN };
  const events: TraceEvent[] = [
    mark,
    // A 10 ms task at page 10–20 ms: 6 ms of a function call, 2 ms of which compiling, and 1 ms layout.
    X('RunTask', 910_000, 10_000, 'disabled-by-default-devtools.timeline'),
    X('FunctionCall', 910_000, 6_000, 'devtools.timeline', { functionName: 'handleCallback', url: 'http://localhost/a.js' }),
    X('V8.CompileCode', 912_000, 2_000, 'disabled-by-default-v8.compile'),
    X('Layout', 917_000, 1_000),
    // Another thread's work never counts.
    { ...X('FunctionCall', 910_000, 10_000), tid: 2 },
    {
      name: 'Profile',
      cat: 'disabled-by-default-v8.cpu_profiler',
      ph: 'P',
      ts: 910_000,
      ...MAIN,
      id: '0x1',
      args: { data: { startTime: 910_000 } },
    },
    {
      name: 'ProfileChunk',
      cat: 'disabled-by-default-v8.cpu_profiler',
      ph: 'P',
      ts: 920_000,
      ...MAIN,
      id: '0x1',
      args: {
        data: {
          cpuProfile: {
            nodes: [
              { id: 1, callFrame: { functionName: '(root)' } },
              {
                id: 2,
                parent: 1,
                callFrame: { functionName: 'handleCallback', url: 'http://localhost/a.js', lineNumber: 0, columnNumber: 9 },
              },
              { id: 3, parent: 1, callFrame: { functionName: '(program)' } },
            ],
            samples: [2, 2, 2, 3, 3],
          },
          timeDeltas: [0, 1000, 1000, 1000, 1000],
        },
      },
    },
  ];

  it('splits the window into self time per kind of work, and sampled time per function', () => {
    const [whole] = summariseTrace(events, [{ name: 'task', from: 5, to: 25 }], sync).windows;
    expect(whole.busy).toBeCloseTo(10);
    expect(whole.buckets).toMatchObject({ script: 4, compile: 2, 'style & layout': 1, other: 3 });
    expect(whole.functions[0]).toEqual({ name: 'handleCallback a.js:1:10', ms: 3 });
    expect(whole.sources.map((s) => s.name)).toEqual(['a.js', '(program)']);
  });

  it('clips events to the window', () => {
    const [part] = summariseTrace(events, [{ name: 'part', from: 13, to: 18 }], sync).windows;
    expect(part.busy).toBeCloseTo(5);
    expect(part.buckets).toMatchObject({ script: 2, compile: 1, 'style & layout': 1, other: 1 });
  });

  it('names the longest tasks by what they ran, and uses source maps when given', () => {
    const resolve = () => ({ file: 'src/lib/auth/auth.ts', line: 132, name: 'handleCallback' });
    const { tasks } = summariseTrace(events, [{ name: 'task', from: 0, to: 30 }], sync, resolve);
    expect(tasks).toEqual([
      {
        start: 10,
        ms: 10,
        what: 'FunctionCall (handleCallback a.js)',
        hottest: 'handleCallback src/lib/auth/auth.ts:132 3.0 ms',
      },
    ]);
  });

  it('refuses a trace it cannot align with the page', () => {
    expect(() => summariseTrace(events.slice(1), [], sync)).toThrow(/bench:sync/);
  });
});

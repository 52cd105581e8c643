// The request waterfall of one page, from Chromium's DevTools Network events: cross-origin Resource
// Timing hides connection details (no Timing-Allow-Origin), DevTools does not.
import type { CDPSession } from 'playwright-core';

export interface WaterfallRow {
  /** Epoch ms. */
  start: number;
  end?: number;
  method: string;
  url: string;
  /** DevTools resource type, e.g. Document, Script, Fetch, Preflight, Other. */
  type: string;
  status?: number;
  /** undefined when no response timing came (cache, failure). */
  newConnection?: boolean;
  connectionId?: number;
  /** Served from the HTTP cache: no network at all. */
  fromCache?: boolean;
}

export interface WaterfallRecorder {
  /** Every request hop so far (each redirect is its own row), in the order they started. */
  rows(): WaterfallRow[];
}

/** Starts recording the page's requests. */
export async function recordWaterfall(cdp: CDPSession): Promise<WaterfallRecorder> {
  const rows: WaterfallRow[] = [];
  const current = new Map<string, WaterfallRow>();
  // DevTools stamps events with a monotonic clock (s); wallTime on requests maps it to epoch ms.
  let offset: number | undefined;
  const epoch = (timestamp: number) => timestamp * 1000 + (offset ?? 0);

  const finish = (requestId: string, timestamp: number) => {
    const row = current.get(requestId);
    if (row && row.end === undefined) row.end = epoch(timestamp);
  };
  const applyResponse = (
    row: WaterfallRow,
    response: { status: number; connectionId: number; timing?: { connectStart: number } },
  ) => {
    row.status = response.status;
    row.connectionId = response.connectionId;
    if (response.timing) row.newConnection = response.timing.connectStart >= 0;
  };

  cdp.on('Network.requestWillBeSent', (event) => {
    offset ??= event.wallTime * 1000 - event.timestamp * 1000;
    const previous = current.get(event.requestId);
    if (previous && event.redirectResponse) {
      applyResponse(previous, event.redirectResponse);
      previous.end = epoch(event.timestamp);
    }
    const row: WaterfallRow = {
      start: epoch(event.timestamp),
      method: event.request.method,
      url: event.request.url,
      type: event.type ?? 'Other',
    };
    rows.push(row);
    current.set(event.requestId, row);
  });
  cdp.on('Network.responseReceived', (event) => {
    const row = current.get(event.requestId);
    if (row) applyResponse(row, event.response);
  });
  cdp.on('Network.requestServedFromCache', (event) => {
    const row = current.get(event.requestId);
    if (row) row.fromCache = true;
  });
  cdp.on('Network.loadingFinished', (event) => finish(event.requestId, event.timestamp));
  cdp.on('Network.loadingFailed', (event) => finish(event.requestId, event.timestamp));
  await cdp.send('Network.enable');
  return { rows: () => rows.map((row) => ({ ...row })) };
}

/**
 * The URL without secrets: host, path with long segments (the provider's interaction ids) elided, and
 * the names, never the values, of query parameters (the callback's code).
 */
export function shortUrl(href: string): string {
  const url = new URL(href);
  const names = [...new URLSearchParams(url.search).keys()];
  const path = url.pathname.replace(/[^/]{24,}/g, '…');
  return `${url.host}${path}${names.length ? '?' + names.join('&') : ''}`;
}

/**
 * The request that finished last before `row` started, if any: `row` ran after it, in sequence.
 * A row that starts while every earlier request is still running overlapped them all.
 */
function predecessor(rows: WaterfallRow[], index: number): number | undefined {
  let best: number | undefined;
  rows.forEach((other, i) => {
    if (i === index || other.fromCache || other.end === undefined || other.end > rows[index].start) return;
    if (best === undefined || other.end > (rows[best].end ?? 0)) best = i;
  });
  return best;
}

/** A printable table; times in ms relative to `zero` (epoch ms). */
export function formatWaterfall(rows: WaterfallRow[], zero: number): string {
  const ms = (t: number | undefined) => (t === undefined ? '…' : String(Math.round(t - zero)));
  const lines = rows.map((row, i) => {
    const after = predecessor(rows, i);
    return [
      `#${i + 1}`.padStart(3),
      `${ms(row.start)}→${ms(row.end)}`.padStart(11),
      row.method.padEnd(7),
      row.type.padEnd(10),
      String(row.status ?? '-').padEnd(4),
      (row.fromCache ? 'cache' : row.newConnection === undefined ? '-' : row.newConnection ? 'yes' : 'no').padEnd(5),
      (after === undefined ? '' : `after #${after + 1}`).padEnd(10),
      shortUrl(row.url),
    ].join(' ');
  });
  return [`  #    start→end ms method  type       code new   sequence   url`, ...lines.map((l) => ' ' + l)].join('\n');
}

// Every request a profile's browser made, from Chromium's own network log: pages, shared workers and
// the browser itself alike. Playwright does not report a shared worker's requests, and attaching
// DevTools to a worker early enough to see its first one means holding its script (what
// tests/support/browser.ts does), which would delay the very start the bench times. The log costs
// nothing measurable and needs no attachment; it is complete once the browser has closed.
import { readFile } from 'node:fs/promises';

export interface NetRequest {
  /** Epoch ms when the request's job started (each redirect hop is a request of its own). */
  at: number;
  method: string;
  url: string;
}

/** Chromium's flags that write the log to `file` (urls and methods; no cookies, no bodies). */
export function netLogFlags(file: string): string[] {
  return [`--log-net-log=${file}`, '--net-log-capture-mode=Default'];
}

interface NetLog {
  constants: { logEventTypes: Record<string, number>; timeTickOffset: string | number };
  events: { type: number; time: string; params?: { method?: string; url?: string } }[];
}

/**
 * The requests in the log at `file`. Chromium ends the file when the browser closes; a browser that
 * died leaves the event list open, which is closed here (the format allows it).
 */
export async function readNetLog(file: string): Promise<NetRequest[]> {
  const text = (await readFile(file, 'utf8')).trimEnd();
  let log: NetLog;
  try {
    log = JSON.parse(text) as NetLog;
  } catch {
    log = JSON.parse(text.replace(/,?$/, ']}')) as NetLog;
  }
  const start = log.constants.logEventTypes.URL_REQUEST_START_JOB;
  const offset = Number(log.constants.timeTickOffset);
  return log.events
    .filter((e) => e.type === start && e.params?.url !== undefined)
    .map((e) => ({ at: offset + Number(e.time), method: e.params!.method ?? 'GET', url: e.params!.url! }));
}

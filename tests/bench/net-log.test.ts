// The network log reader the sign-in bench counts requests with: what it keeps, and a log Chromium
// did not get to finish.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNetLog } from './net-log';

// The shape Chromium writes: event types by name in the constants, times as strings of ms since
// timeTickOffset (epoch ms).
const constants = { logEventTypes: { REQUEST_ALIVE: 1, URL_REQUEST_START_JOB: 2 }, timeTickOffset: '1000000' };
const events = [
  { type: 1, time: '5', params: { url: 'http://a.test/ignored' } },
  { type: 2, time: '10', params: { method: 'POST', url: 'http://a.test/connect/token' } },
  { type: 2, time: '12', phase: 2, params: { net_error: -3 } },
  { type: 2, time: '20', params: { method: 'GET', url: 'http://a.test/assets/worker-x.js' } },
];
const expected = [
  { at: 1_000_010, method: 'POST', url: 'http://a.test/connect/token' },
  { at: 1_000_020, method: 'GET', url: 'http://a.test/assets/worker-x.js' },
];

describe('readNetLog', () => {
  let dir: string;
  beforeEach(async () => void (dir = await mkdtemp(path.join(tmpdir(), 'net-log-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('lists each request job with its epoch start, method and url, and nothing else', async () => {
    await writeFile(path.join(dir, 'log.json'), JSON.stringify({ constants, events }));
    expect(await readNetLog(path.join(dir, 'log.json'))).toEqual(expected);
  });

  it('reads a log a browser left unfinished (the event list never closed)', async () => {
    const text = JSON.stringify({ constants, events }).replace(/\]\}$/, ',\n');
    await writeFile(path.join(dir, 'log.json'), text);
    expect(await readNetLog(path.join(dir, 'log.json'))).toEqual(expected);
  });
});

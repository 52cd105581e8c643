// A fresh regular Chromium profile per run, shared by the bench's cases.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import type { LatencyProxy } from './latency-proxy';
import { netLogFlags, readNetLog, type NetRequest } from './net-log';

/**
 * Runs `use` in headless Chromium with a new profile, removed afterwards. A regular profile: Chromium
 * ignores rel=preconnect off the record, as fresh Playwright contexts are. Returns what `use` returned
 * and every request the browser made meanwhile (tests/bench/net-log.ts), its shared workers' too.
 */
export async function withProfile<T>(
  proxy: LatencyProxy | undefined,
  use: (context: BrowserContext) => Promise<T>,
): Promise<{ value: T; requests: NetRequest[] }> {
  const executablePath = process.env.CHROME_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`No Chromium at ${executablePath}; set CHROME_PATH`);
  const profile = await mkdtemp(path.join(tmpdir(), 'bench-signin-'));
  const netLog = `${profile}.net-log.json`;
  // <-loopback> sends loopback traffic through the proxy too, so every connection pays the distance.
  // At 0 ms there is no proxy: Chromium talks to the servers directly, as close as they can be.
  const viaProxy = proxy ? [`--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'] : [];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', ...viaProxy, ...netLogFlags(netLog)],
  });
  try {
    const value = await use(context);
    await context.close();
    return { value, requests: await readNetLog(netLog) };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await rm(netLog, { force: true });
  }
}

// The recorders see what a context's shared workers send and log, though Playwright reports neither
// (microsoft/playwright#33917): the auth module's token requests are about to move into one.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { IncomingMessage } from 'node:http';
import type { Browser } from 'playwright-core';
import { collectConsole, collectCspViolations, launchBrowser, recordRequests } from '../support/browser';
import { serveOnLoopback } from '../support/static-server';

/** The page starts a module shared worker for its `?tag=`, and shows what the worker answers. */
const PAGE = `<!doctype html><title>worker</title><script type="module">
  const tag = new URLSearchParams(location.search).get('tag');
  const worker = new SharedWorker('/worker.js?tag=' + tag, { type: 'module', name: 'recorder ' + tag });
  worker.port.onmessage = (e) => (document.body.dataset.answer = e.data);
</script>`;

/** Its very first statement is the POST: a recorder armed too late would miss it. */
const WORKER = `const tag = new URL(location.href).searchParams.get('tag');
const answer = fetch('/connect/token?tag=' + tag, {
  method: 'POST',
  headers: { Authorization: 'Bearer worker-' + tag, DPoP: 'proof-' + tag, 'Content-Type': 'application/x-www-form-urlencoded' },
  body: 'grant_type=refresh_token&tag=' + tag,
}).then((r) => r.text());
answer.then((text) => console.log('worker got', text));
fetch('http://127.0.0.1:1/unsafe-port').catch(() => undefined);
fetch('http://127.0.0.1:' + location.port + '/not-in-connect-src').catch(() => undefined);
onconnect = (e) => answer.then((text) => e.ports[0].postMessage(text));`;

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
  });

describe('shared workers in the recorders', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("records each context's shared worker requests from its first fetch, with headers, body, status, response and failure, and its console", async () => {
    const server = await serveOnLoopback(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
      } else if (url.pathname === '/worker.js') {
        // A worker's CSP comes with its script.
        res
          .writeHead(200, {
            'Content-Type': 'text/javascript; charset=utf-8',
            'Content-Security-Policy': "connect-src 'self' http://127.0.0.1:1",
          })
          .end(WORKER);
      } else if (url.pathname === '/connect/token' && req.method === 'POST') {
        const sent = new URLSearchParams(await readBody(req));
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ access_token: 'at-' + sent.get('tag') }));
      } else {
        res.writeHead(404).end();
      }
    });
    onTestFinished(() => server.close());

    // Two contexts of one browser at once: each log holds its own worker's requests, and those only once.
    const sessions = [];
    for (const tag of ['a', 'b']) {
      const context = await browser.newContext();
      onTestFinished(() => context.close());
      const log = recordRequests(context, { bodies: /\/connect\/token/ });
      const messages = collectConsole(context);
      const csp = await collectCspViolations(context);
      const page = await context.newPage();
      await page.goto(`${server.url}?tag=${tag}`);
      sessions.push({ tag, page, log, messages, csp });
    }

    for (const { tag, page, log, messages, csp } of sessions) {
      await expect
        .poll(() => page.locator('body').getAttribute('data-answer'))
        .toBe(JSON.stringify({ access_token: 'at-' + tag }));
      await expect.poll(() => log.matching('/unsafe-port').some((e) => e.failure)).toBe(true);
      await log.settle();
      const tokens = log.matching('/connect/token');
      expect(tokens, 'one request, from this context only').toHaveLength(1);
      const [token] = tokens;
      expect(token).toMatchObject({
        url: `${server.url}connect/token?tag=${tag}`,
        method: 'POST',
        postData: `grant_type=refresh_token&tag=${tag}`,
        status: 200,
        body: JSON.stringify({ access_token: 'at-' + tag }),
        resourceType: 'fetch',
        isNavigation: false,
      });
      expect(token.headers).toMatchObject({
        authorization: `Bearer worker-${tag}`,
        dpop: `proof-${tag}`,
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(token.responseTime).toBeGreaterThanOrEqual(token.time);
      const [refused, ...more] = log.matching('/unsafe-port');
      expect(more).toEqual([]);
      expect(refused).toMatchObject({ method: 'GET', failure: 'net::ERR_UNSAFE_PORT' });
      expect(refused.status).toBeUndefined();
      // The worker's script is the page's request, reported by Playwright (once) without its response:
      // the watch gives it, which also ends settle()'s wait for its headers.
      expect(log.matching('/worker.js')).toEqual([
        expect.objectContaining({ method: 'GET', resourceType: 'script', status: 200 }),
      ]);
      await expect
        .poll(() => messages.filter((m) => m.text.startsWith('worker got')))
        .toEqual([
          {
            type: 'log',
            text: `worker got ${JSON.stringify({ access_token: 'at-' + tag })}`,
            url: `${server.url}worker.js?tag=${tag}`,
          },
        ]);
      // A worker's CSP violation is Chromium's console report in the worker (no init script runs there).
      await expect
        .poll(
          () =>
            csp.filter((v) => v.text.includes('/not-in-connect-src') && v.page === `${server.url}worker.js?tag=${tag}`).length,
        )
        .toBeGreaterThan(0);
    }
  });
});

// End-to-end: a fresh Vite + Svelte app with path routes of its own (tests/e2e/vite-paths: pushState,
// replaceState and popstate, no router library), built here with Vite's JS API against the packed
// @pkce-spa/auth (package/, as an installed package would be), in real Chromium against the local
// identity provider. The library completes the callback and hands back the `returnTo` given to
// signIn(); the app navigates, so no URL ever carries a '#' and the library names no route.
// Needs `npm run package` first (npm test does it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser } from '../support/browser';
import { signInAs, tokenRequests } from '../support/flows';
import { startIdp, type Idp } from '../support/stack';
import { repoRoot, resolveInside, serveOnLoopback, TYPES } from '../support/static-server';
import { ALICE, newSession, readClaims, type Session } from './helpers';

const fixture = fileURLToPath(new URL('./vite-paths', import.meta.url));
const packed = path.join(repoRoot, 'package');

interface Site {
  url: string;
  close(): Promise<void>;
}

let tmp: string | undefined;
let site: Site | undefined;
let idp: Idp | undefined;
let browser: Browser | undefined;
const open: Session[] = [];

/** Build the fixture into a fresh temporary directory; returns that directory. */
async function buildFixture(): Promise<string> {
  const manifest = path.join(packed, 'package.json');
  const missing = `${packed} has no packed library: run \`npm run package\` first (npm test does this)`;
  if (!existsSync(manifest)) throw new Error(missing);
  // The entry the package's own exports map gives a Svelte bundler, as for an installed copy.
  const { exports } = JSON.parse(await readFile(manifest, 'utf8')) as { exports: Record<string, { svelte: string }> };
  const entry = path.join(packed, exports['.'].svelte);
  if (!existsSync(entry)) throw new Error(missing);
  tmp = await mkdtemp(path.join(tmpdir(), 'vite-paths-'));
  const outDir = path.join(tmp, 'dist');
  await build({
    root: fixture,
    configFile: false,
    logLevel: 'silent',
    cacheDir: path.join(tmp, 'cache'),
    plugins: [svelte()],
    resolve: { alias: [{ find: /^@pkce-spa\/auth$/, replacement: entry }] },
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

/** Serves `root` like a static host with an SPA fallback: a path without an extension gets index.html. */
async function serveFixture(root: string, config: () => Record<string, unknown>): Promise<Site> {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, {
        'Content-Type': type,
        'Content-Length': String(Buffer.byteLength(body)),
        'Cache-Control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain; charset=utf-8', 'Method Not Allowed\n');
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/config.json') return send(200, TYPES['.json'], JSON.stringify(config()));
    const base = resolveInside(root, pathname);
    const file = base && !path.extname(base) ? path.join(root, 'index.html') : base;
    if (!file || !(await stat(file).catch(() => null))?.isFile()) return send(404, 'text/plain; charset=utf-8', 'Not Found\n');
    send(200, TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream', await readFile(file));
  }
  return serveOnLoopback(handle);
}

beforeAll(async () => {
  const outDir = await buildFixture();
  let config: Record<string, unknown> = {};
  site = await serveFixture(outDir, () => config);
  idp = await startIdp({ redirectUris: [new URL('callback', site.url).href] });
  config = {
    server: {
      issuer: idp.issuer,
      authorization_endpoint: `${idp.accountUrl}/connect/authorize`,
      token_endpoint: `${idp.accountUrl}/connect/token`,
      userinfo_endpoint: `${idp.authUrl}/connect/userinfo`,
    },
    clientId: idp.clientId,
    scope: 'openid profile email',
  };
  browser = await launchBrowser();
});

afterEach(async () => {
  for (const session of open.splice(0)) await session.context.close();
});

afterAll(async () => {
  await browser?.close();
  await Promise.allSettled([site?.close(), idp?.close()]);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

interface Visit extends Session {
  /** Every URL the tab showed, full loads and history changes (pushState, replaceState, '#') alike. */
  urls: string[];
}

async function visit(): Promise<Visit> {
  const session = await newSession(browser!);
  open.push(session);
  const urls: string[] = [];
  session.page.on('framenavigated', (frame) => {
    if (frame === session.page.mainFrame()) urls.push(frame.url());
  });
  return { ...session, urls };
}

const appUrl = (route: string) => new URL(route, site!.url).href;

/** Open /orders?page=2, sign in from there as alice, and wait until the orders show. */
async function signInFromOrders({ page }: Visit): Promise<void> {
  await page.goto(appUrl('/orders?page=2'));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await signInAs(page, ALICE.username, ALICE.password, site!.url);
  await page.locator('[data-orders-page]').waitFor();
}

const pageErrors = ({ console }: Visit) => console.filter((entry) => entry.type === 'pageerror');

describe('a Vite + Svelte app with path routes and the packed library', () => {
  test('signing in from /orders?page=2 comes back to /orders?page=2 with the claims', async () => {
    const session = await visit();
    const { page, log, urls } = session;
    await signInFromOrders(session);
    await page.waitForURL(appUrl('/orders?page=2'));

    expect(await readClaims(page)).toEqual({
      sub: expect.stringMatching(/^[\w-]+$/),
      email: ALICE.email,
      name: ALICE.name,
      preferred_username: ALICE.username,
    });
    expect(await page.locator('[data-orders-page]').textContent()).toContain('Page 2');
    expect(tokenRequests(log, 'authorization_code')).toHaveLength(1);
    // The provider's answer arrives at the redirect URI only, and the app's replaceState takes it off.
    const withCode = urls.filter((url) => url.startsWith(site!.url) && /[?&]code=/.test(url));
    expect([...new Set(withCode.map((url) => new URL(url).pathname))]).toEqual(['/callback']);
    expect(page.url()).not.toMatch(/[?&](code|state)=/);
    expect(urls.filter((url) => url.includes('#'))).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });

  test('signing out shows the signed-out start page', async () => {
    const session = await visit();
    const { page, urls } = session;
    await signInFromOrders(session);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(appUrl('/'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.locator('[data-claim]').count()).toBe(0);
    expect(urls.filter((url) => url.includes('#'))).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });

  test('a stale callback shows a notice on the start page and sends no token request', async () => {
    const session = await visit();
    const { page, log, urls } = session;
    await page.goto(appUrl('/callback?code=x&state=y'));

    await page.locator('[role="alert"][data-error-code="unknown_transaction"]').waitFor();
    await page.waitForURL(appUrl('/'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(page.url()).toBe(appUrl('/'));
    expect(tokenRequests(log)).toEqual([]);
    expect(urls.filter((url) => url.includes('#'))).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });
});

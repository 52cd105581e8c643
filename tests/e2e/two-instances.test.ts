// Two auth instances on one page, of two apps (each its own client at its own provider), sharing ONE
// redirect URI and ONE post-logout URI: a callback belongs to the instance whose pending sign-in its
// `state` names, and the other leaves it in the URL for it; a sign-out's return belongs to the instance
// that signed out. A reload brings both sessions back from their workers, and signing out of one leaves
// the other signed in. The page is built here, with Vite, from the module's source (src/lib/auth).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type RecordedRequest } from '../support/browser';
import { answerSignOut, endSessionRequests, signInAs, tokenRequests } from '../support/flows';
import { serveSite, type Site } from '../support/sveltekit-site';
import { startIdp, type Idp } from '../support/stack';
import { repoRoot } from '../support/static-server';
import { ALICE, closeSessions, newSession, type Session } from './helpers';

const BOB = { username: 'bob', password: 'builder' };
const APPS = ['one', 'two'] as const;
type App = (typeof APPS)[number];

/**
 * Each instance shows its status and person in `[data-app=…]`, with its own Sign in and Sign out. Both
 * start in the order of config.json's `apps`, one redirect URI (/) and one post-logout URI (/bye).
 */
const MAIN = `import { createAuth } from '@pkce-spa/auth';
async function run() {
  const { apps } = await (await fetch('/config.json', { cache: 'no-store' })).json();
  const instances = apps.map(({ name, server, clientId }) => {
    const auth = createAuth({
      server, clientId, scope: 'openid profile email',
      redirectUri: location.origin + '/', postLogoutRedirectUri: location.origin + '/bye',
    });
    const section = Object.assign(document.createElement('section'), { ariaLabel: name });
    section.dataset.app = name;
    const status = section.appendChild(document.createElement('output'));
    const person = section.appendChild(document.createElement('output'));
    const error = section.appendChild(document.createElement('output'));
    status.dataset.status = person.dataset.person = error.dataset.error = '';
    for (const [label, act] of [['Sign in', () => auth.signIn()], ['Sign out', () => auth.signOut()]])
      section.appendChild(Object.assign(document.createElement('button'), { textContent: label, onclick: act }));
    auth.session.subscribe(({ status: s, user, error: e }) => {
      status.textContent = s;
      person.textContent = user?.preferred_username ?? '';
      error.textContent = e?.code ?? '';
    });
    document.body.append(section);
    return auth;
  });
  await Promise.all(instances.map((auth) => auth.start()));
}
void run();
`;

const INDEX = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Two instances</title></head>
<body><script type="module" src="/main.js"></script></body></html>`;

/** Builds the page into a fresh temporary directory; returns its dist/. */
async function buildPage(tmp: string): Promise<string> {
  const root = path.join(tmp, 'src');
  const outDir = path.join(tmp, 'dist');
  await mkdir(root);
  await writeFile(path.join(root, 'index.html'), INDEX);
  await writeFile(path.join(root, 'main.js'), MAIN);
  await build({
    root,
    configFile: false,
    logLevel: 'silent',
    cacheDir: path.join(tmp, 'cache'),
    plugins: [svelte()],
    resolve: { alias: [{ find: /^@pkce-spa\/auth$/, replacement: path.join(repoRoot, 'src/lib/auth/index.ts') }] },
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

const endpointsOf = (idp: Idp) => ({
  issuer: idp.issuer,
  authorization_endpoint: `${idp.accountUrl}/connect/authorize`,
  token_endpoint: `${idp.accountUrl}/connect/token`,
  userinfo_endpoint: `${idp.authUrl}/connect/userinfo`,
  end_session_endpoint: `${idp.accountUrl}/connect/endsession`,
  revocation_endpoint: `${idp.accountUrl}/connect/revocation`,
});

const originsOf = (idp: Idp) => [idp.accountUrl, idp.authUrl].map((url) => new URL(url).origin);
const toIdp = (entries: RecordedRequest[], idp: Idp) => entries.filter((e) => originsOf(idp).includes(new URL(e.url).origin));
const described = (entries: RecordedRequest[]) => entries.map((e) => `${e.method} ${e.url.split('?')[0]}`);

describe('two instances of two apps on one page, one redirect URI and one post-logout URI', () => {
  let tmp: string;
  let site: Site;
  const idps = {} as Record<App, Idp>;
  let browser: Browser;
  const open: Session[] = [];

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'two-instances-'));
    site = await serveSite(await buildPage(tmp), 'index.html');
    for (const app of APPS) {
      idps[app] = await startIdp({
        clientId: `app-${app}`,
        redirectUris: [site.url],
        postLogoutRedirectUris: [new URL('bye', site.url).href],
      });
    }
    site.setConfig({ apps: APPS.map((name) => ({ name, server: endpointsOf(idps[name]), clientId: idps[name].clientId })) });
    browser = await launchBrowser();
  });
  afterEach((context) => closeSessions(open, context));
  afterAll(async () => {
    await browser?.close();
    await Promise.allSettled([site?.close(), ...Object.values(idps).map((idp) => idp.close())]);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const section = (page: Page, app: App) => page.locator(`[data-app="${app}"]`);
  /** What an instance shows: status, person and error code. */
  const shown = async (page: Page, app: App) => ({
    status: await section(page, app).locator('[data-status]').textContent(),
    person: await section(page, app).locator('[data-person]').textContent(),
    error: await section(page, app).locator('[data-error]').textContent(),
  });
  const shows = (page: Page, app: App, expected: { status: string; person?: string }) =>
    expect.poll(() => shown(page, app)).toEqual({ person: '', error: '', ...expected });

  async function signInTo(page: Page, app: App, user: { username: string; password: string }) {
    await section(page, app).getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Username').waitFor();
    expect(new URL(page.url()).origin).toBe(new URL(idps[app].accountUrl).origin);
    await signInAs(page, user.username, user.password, site.url);
  }

  it('each callback reaches its own instance, a reload brings both back with no navigation, and one sign-out leaves the other signed in', async () => {
    const session = await newSession(browser);
    open.push(session);
    const { page, log } = session;
    await page.goto(site.url);
    for (const app of APPS) await shows(page, app, { status: 'signed-out' });

    // Two's callback comes to a page where one starts first: one must leave it in the URL for two.
    await signInTo(page, 'one', ALICE);
    await shows(page, 'one', { status: 'signed-in', person: ALICE.username });
    await shows(page, 'two', { status: 'signed-out' });
    await signInTo(page, 'two', BOB);
    await shows(page, 'two', { status: 'signed-in', person: BOB.username });
    await shows(page, 'one', { status: 'signed-in', person: ALICE.username });
    expect(new URL(page.url()).search, 'the callback left the URL').toBe('');
    await log.settle();
    for (const app of APPS) {
      const codes = tokenRequests(log, 'authorization_code');
      expect(codes.filter((e) => e.url.startsWith(idps[app].accountUrl)).map((e) => e.status)).toEqual([200]);
    }

    // A lone reload: both sessions from their workers, nothing sent to either provider, no navigation.
    const before = log.entries.length;
    await page.reload();
    await shows(page, 'one', { status: 'signed-in', person: ALICE.username });
    await shows(page, 'two', { status: 'signed-in', person: BOB.username });
    await log.settle();
    const reloaded = log.entries.slice(before);
    for (const app of APPS) expect(described(toIdp(reloaded, idps[app]))).toEqual([]);
    expect(reloaded.filter((e) => e.isNavigation).map((e) => e.url)).toEqual([site.url]);

    // Two, which starts second, signs out: its return to the shared post-logout URI is its own, and one,
    // starting first, neither takes it nor loses its session.
    const signingOut = log.entries.length;
    await section(page, 'two').getByRole('button', { name: 'Sign out' }).click();
    await answerSignOut(page, 'Sign out', site.url);
    await page.waitForURL(new URL('bye', site.url).href);
    await shows(page, 'two', { status: 'signed-out' });
    await shows(page, 'one', { status: 'signed-in', person: ALICE.username });
    await log.settle();
    const after = log.entries.slice(signingOut);
    expect(described(toIdp(after, idps.one)), "nothing of two's sign-out went to one's provider").toEqual([]);
    expect(endSessionRequests({ entries: after }).map((e) => new URL(e.url).origin)).toEqual([
      new URL(idps.two.accountUrl).origin,
    ]);

    // And one, on its own later: two stays signed out, one's return is its own too.
    await section(page, 'one').getByRole('button', { name: 'Sign out' }).click();
    await answerSignOut(page, 'Sign out', site.url);
    await page.waitForURL(new URL('bye', site.url).href);
    for (const app of APPS) await shows(page, app, { status: 'signed-out' });
  });
});

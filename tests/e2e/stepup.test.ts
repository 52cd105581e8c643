// The right token for every API, against the local provider: a per-API token (RFC 8707) for the demo
// API, step-up on its insufficient_scope challenge with the draft kept across the redirect, a second
// refusal that never redirects on its own, a step-up bounded by what the API may ask for and reaching
// every tab of the session (that API's grants alone), and RFC 9470's max_age step-up with auth_time checked.
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { authorizeRequests, callbacks, consent, formOf, login, tokenRequests, tokenResponses } from '../support/flows';
import { getWith } from '../support/node-client';
import { ALICE, joined, readClaims, routeOf, signIn, useEnv } from './helpers';

const scopesOf = (url: string) => (new URL(url).searchParams.get('scope') ?? '').split(' ');

/** Headers of an RFC 6750 insufficient_scope answer the app at `appUrl` may read across origins. */
const challenge = (appUrl: string, scope: string) => ({
  'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  'access-control-allow-origin': new URL(appUrl).origin,
  'access-control-expose-headers': 'WWW-Authenticate',
});

/**
 * Another API of `apis` the local provider does not know: its resource is taken out of authorization
 * requests (navigations, which Playwright routes). Its token grants are the worker's, which Playwright
 * does not route: they reach the provider, which refuses them, and stay in the request log, to read
 * what they asked for.
 */
async function otherApiUnknownToProvider(context: BrowserContext, origin: string, accountUrl: string) {
  await context.route(
    (url) => url.href.startsWith(accountUrl) && url.pathname === '/connect/authorize',
    (route) => {
      const url = new URL(route.request().url());
      const resources = url.searchParams.getAll('resource').filter((resource) => resource !== origin);
      url.searchParams.delete('resource');
      for (const resource of resources) url.searchParams.append('resource', resource);
      return route.continue({ url: url.href });
    },
  );
}

describe('a token per API, and step-up on its challenge', () => {
  const env = useEnv();

  it('the notes API refuses the sign-in token and takes the token for its resource', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/notes');
    await page.getByRole('button', { name: 'Welcome' }).waitFor();
    await log.settle();
    const [signInTokens, apiTokens] = tokenResponses(log);
    // The API's token came from the refresh token, for the API's resource and scope (RFC 8707 §2.2).
    const grant = formOf(tokenRequests(log, 'refresh_token')[0]);
    expect([grant.resource, grant.scope]).toEqual([idp.apiUrl, 'notes.read']);
    const listed = log.matching(idp.apiUrl + '/api/notes', 'GET').find((e) => e.status === 200)!;
    expect(listed.headers.authorization).toBe(`Bearer ${apiTokens.access_token}`);
    const notes = idp.apiUrl + '/api/notes';
    expect((await getWith(notes, { authorization: `Bearer ${signInTokens.access_token}` })).status).toBe(401);
    expect((await getWith(notes, { authorization: `Bearer ${apiTokens.access_token}` })).status).toBe(200);
    // The sign-in token still serves userinfo, the API's token never went there.
    const userinfo = log.matching('/connect/userinfo', 'GET').find((e) => e.status === 200)!;
    expect(userinfo.headers.authorization).toBe(`Bearer ${signInTokens.access_token}`);
  });

  it('Add note meets insufficient_scope: Grant access, consent, and the draft is saved with notes.write', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/notes');
    await page.getByRole('button', { name: 'Welcome' }).waitFor();
    await page.getByLabel('Title').fill('Kept across the redirect');
    await page.getByLabel('Text').fill('Saved once back');
    await page.getByRole('button', { name: 'Add note' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'notes.write' });
    await alert.waitFor();
    const authorizes = authorizeRequests(log).length;
    await alert.getByRole('button', { name: 'Grant access' }).click();
    await consent(page, 'Allow');
    // Back on the notes, the draft is saved by itself.
    await page.getByRole('button', { name: 'Kept across the redirect' }).waitFor();
    expect(page.url()).toMatch(/#\/notes$/);
    const stepUp = authorizeRequests(log).slice(authorizes);
    expect(stepUp).toHaveLength(1);
    expect(scopesOf(stepUp[0].url)).toEqual(expect.arrayContaining(['openid', 'notes.read', 'notes.write']));
    await log.settle();
    const saved = log.matching(idp.apiUrl + '/api/notes', 'POST').filter((e) => e.status === 201);
    expect(saved).toHaveLength(1);
    const token = saved[0].headers.authorization?.replace(/^Bearer /, '');
    const issued = tokenResponses(log).find((t) => t.access_token === token)!;
    expect(String(issued.scope).split(' ')).toContain('notes.write');
    // A per-API token (a refresh_token grant naming the API as resource), never a sign-in token.
    const exchange = (grantType: string) =>
      tokenRequests(log, grantType)
        .filter((e) => e.status === 200 && e.body)
        .map((e) => [formOf(e), JSON.parse(e.body!)]);
    const [grant] = exchange('refresh_token').find(([, body]) => body.access_token === token)!;
    expect(grant.resource).toBe(idp.apiUrl);
    expect(grant.scope.split(' ')).toContain('notes.write');
    for (const [, body] of exchange('authorization_code')) expect(body.access_token).not.toBe(token);
    // Only what the view keeps for its draft, gone once saved; never a token.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain('Kept across the redirect');
    for (const t of tokenResponses(log)) expect(stored).not.toContain(String(t.access_token));
  });

  it('refused again after consent: Add note shows the alert again, saved once, and no redirect on its own', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    // This API wants notes.write for a POST whatever the token holds.
    await context.route(idp.apiUrl + '/api/notes', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 403, headers: challenge(app.url, 'notes.write') })
        : route.continue(),
    );
    await signIn(session, app.url, '#/signin?returnTo=/notes');
    await page.getByRole('button', { name: 'Welcome' }).waitFor();
    await page.getByLabel('Title').fill('Refused twice');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('alert').filter({ hasText: 'notes.write' }).waitFor();
    const authorizes = authorizeRequests(log).length;
    const posts = log.matching(idp.apiUrl + '/api/notes', 'POST').length;
    await page.getByRole('button', { name: 'Grant access' }).click();
    await consent(page, 'Allow');
    await page.waitForURL((url) => url.href.startsWith(app.url + '#/notes'));
    // Back with notes.write granted, the draft is sent once, refused, and the page says so and stays.
    const alert = page.getByRole('alert').filter({ hasText: 'notes.write' });
    await alert.waitFor();
    await alert.getByRole('button', { name: 'Grant access' }).waitFor();
    await log.settle();
    const again = log.matching(idp.apiUrl + '/api/notes', 'POST').slice(posts);
    expect(again).toHaveLength(1);
    expect(again[0].status).toBe(403);
    const token = again[0].headers.authorization?.replace(/^Bearer /, '');
    expect(String(tokenResponses(log).find((t) => t.access_token === token)!.scope).split(' ')).toContain('notes.write');
    expect(authorizeRequests(log)).toHaveLength(authorizes + 1);
    expect(routeOf(page)).toBe('#/notes');
    expect(await page.getByLabel('Title').inputValue()).toBe('Refused twice');
  });

  it('#/api: Grant access, consent, and the page repeats the call by itself and shows its result', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    // The first greeting is refused for notes.write; after that the demo API answers.
    let refuse = true;
    await context.route(idp.apiUrl + '/api/greeting', (route) => {
      if (route.request().method() === 'OPTIONS' || !refuse) return route.continue();
      refuse = false;
      return route.fulfill({ status: 403, headers: challenge(app.url, 'notes.write') });
    });
    await signIn(session, app.url, '#/signin?returnTo=/api');
    const alert = page.getByRole('alert').filter({ hasText: 'notes.write' });
    await alert.waitFor();
    const authorizes = authorizeRequests(log).length;
    await alert.getByRole('button', { name: 'Grant access' }).click();
    await consent(page, 'Allow');
    const result = page.getByTestId('api-result');
    await result.waitFor();
    expect(routeOf(page)).toBe('#/api');
    // One interactive authorization for the session's scopes plus notes.write, for the API as resource.
    const stepUp = authorizeRequests(log).slice(authorizes);
    expect(stepUp).toHaveLength(1);
    const asked = new URL(stepUp[0].url).searchParams;
    expect(asked.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'notes.read', 'notes.write']));
    expect(asked.getAll('resource')).toEqual([idp.apiUrl]);
    expect(asked.get('prompt')).not.toBe('none');
    await log.settle();
    const answered = log.matching(idp.apiUrl + '/api/greeting', 'GET').filter((e) => e.status === 200);
    expect(answered).toHaveLength(1);
    const token = answered[0].headers.authorization?.replace(/^Bearer /, '');
    expect(String(tokenResponses(log).find((t) => t.access_token === token)!.scope).split(' ')).toContain('notes.write');
    const shown = JSON.parse((await result.textContent()) ?? '{}') as { greeting: string; scope: string };
    expect(shown.greeting).toBe(`Hello, ${ALICE.name}!`);
    expect(shown.scope.split(' ')).toContain('notes.write');
  });
});

describe('a step-up bounded by what the API may ask for, reaching every tab of the session', () => {
  const env = useEnv();

  it('the API asks for a scope outside its scope and stepUpScopes: an error, no consent screen', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    // notes.admin is in neither the API's scope (notes.read) nor its stepUpScopes (notes.write).
    await context.route(idp.apiUrl + '/api/notes', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 403, headers: challenge(app.url, 'notes.write notes.admin') })
        : route.continue(),
    );
    await signIn(session, app.url, '#/signin?returnTo=/notes');
    await page.getByRole('button', { name: 'Welcome' }).waitFor();
    const authorizes = authorizeRequests(log).length;
    await page.getByLabel('Title').fill('Never asked for');
    await page.getByRole('button', { name: 'Add note' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The note was not saved (scope_not_allowed, HTTP 403)' });
    await alert.waitFor();
    expect(await alert.textContent()).not.toContain('notes.admin');
    expect(await page.getByRole('button', { name: 'Grant access' }).count()).toBe(0);
    await log.settle();
    expect(authorizeRequests(log)).toHaveLength(authorizes);
    expect(page.url().startsWith(app.url)).toBe(true);
    expect(await page.getByLabel('Title').inputValue()).toBe('Never asked for');
  });

  it("Grant access in one tab: another tab of the session uses the wider token without asking, and the other API's grant never carries it", async () => {
    const { app, idp, config } = env.stack;
    const other = 'http://127.0.0.1:9099';
    const apis = { ...(config.apis as Record<string, unknown>), [other]: { resource: other } };
    app.setConfig({ ...config, apis });
    onTestFinished(() => app.setConfig(config));
    const session = await env.open();
    const { page, log, context } = session;
    await otherApiUnknownToProvider(context, other, idp.accountUrl);
    await signIn(session, app.url, '#/signin?returnTo=/notes');
    await page.getByRole('button', { name: 'Welcome' }).waitFor();
    await joined(page);
    const second = await context.newPage();
    await second.goto(app.url + '#/notes');
    await second.getByRole('button', { name: 'Welcome' }).waitFor();

    // The first tab meets notes.write, grants it, and saves.
    await page.getByLabel('Title').fill('From the first tab');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('alert').filter({ hasText: 'notes.write' }).getByRole('button', { name: 'Grant access' }).click();
    await consent(page, 'Allow');
    await page.getByRole('button', { name: 'From the first tab' }).waitFor();
    const authorizes = authorizeRequests(log).length;
    expect(authorizes).toBe(2);

    // The second tab shares the app's worker, which holds the wider grant since the first tab's step-up
    // came back: its note is saved at once, with no alert and no authorization.
    await second.getByLabel('Title').fill('From the second tab');
    await second.getByRole('button', { name: 'Add note' }).click();
    await second.getByRole('button', { name: 'From the second tab' }).waitFor();
    expect(await second.getByRole('alert').count()).toBe(0);
    await log.settle();
    expect(authorizeRequests(log)).toHaveLength(authorizes);
    const saved = log.matching(idp.apiUrl + '/api/notes', 'POST').filter((e) => e.status === 201);
    expect(saved).toHaveLength(2);
    const grants = tokenRequests(log, 'refresh_token').filter((e) => e.status === 200 && e.body);
    const grantOf = (token: string) => formOf(grants.find((e) => JSON.parse(e.body!).access_token === token)!);
    const secondToken = saved[1].headers.authorization!.replace(/^Bearer /, '');
    expect(grantOf(secondToken).resource).toBe(idp.apiUrl);
    expect(grantOf(secondToken).scope.split(' ')).toContain('notes.write');

    // A third tab calls the other API: its grant asks for that API alone, without what the step-up added.
    const third = await context.newPage();
    await third.route(app.url + 'config.json', (route) =>
      route.fulfill({ json: { ...config, apis, apiUrl: other + '/api/greeting' } }),
    );
    await third.goto(app.url + '#/api');
    // What the worker's grant asked for (otherApiUnknownToProvider: the provider refuses it).
    const otherGrants = () =>
      tokenRequests(log, 'refresh_token')
        .map(formOf)
        .filter((form) => form.resource === other);
    await expect.poll(() => otherGrants().length).toBe(1);
    expect(otherGrants()[0].scope).toBeUndefined();
    expect(authorizeRequests(log)).toHaveLength(authorizes);
  });
});

describe('an API origin without an apis entry', () => {
  const env = useEnv({ extraConfig: { apis: {} } });

  /** The demo greeting asks for api.write, whatever the token. */
  const asksForApiWrite = (context: BrowserContext, apiUrl: string, appUrl: string) =>
    context.route(apiUrl + '/api/greeting', (route) =>
      route.request().method() === 'OPTIONS'
        ? route.continue()
        : route.fulfill({ status: 403, headers: challenge(appUrl, 'api.write') }),
    );

  it('insufficient_scope for a scope the instance does not let it ask (no stepUpScopes): an error, no consent screen', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    await asksForApiWrite(context, idp.apiUrl, app.url);
    await signIn(session, app.url, '#/signin?returnTo=/api');
    const alert = page.getByRole('alert').filter({ hasText: 'a permission this app may not request' });
    await alert.waitFor();
    expect(await alert.textContent()).not.toContain('api.write');
    expect(await page.getByRole('button', { name: 'Grant access' }).count()).toBe(0);
    await log.settle();
    expect(authorizeRequests(log)).toHaveLength(1);
  });

  it('with stepUpScopes: the scope and Grant access; a second refusal is an error, never another redirect', async () => {
    const { app, idp, config } = env.stack;
    app.setConfig({ ...config, stepUpScopes: 'api.write' });
    onTestFinished(() => app.setConfig(config));
    const session = await env.open();
    const { page, log, context } = session;
    await asksForApiWrite(context, idp.apiUrl, app.url);
    await signIn(session, app.url, '#/signin?returnTo=/api');
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: 'api.write' }).waitFor();
    const authorizes = authorizeRequests(log).length;
    const calls = log.matching(idp.apiUrl + '/api/greeting', 'GET').length;
    const returns = callbacks(log, app.url).length;
    await page.getByRole('button', { name: 'Grant access' }).click();
    // The provider knows no api.write: it asks nothing more and answers without it.
    await expect.poll(() => callbacks(log, app.url).length).toBe(returns + 1);
    // One interactive authorization for the session's scopes plus the missing one, no resource indicator.
    const stepUp = authorizeRequests(log).slice(authorizes);
    expect(stepUp).toHaveLength(1);
    const asked = new URL(stepUp[0].url).searchParams;
    expect(asked.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'api.write']));
    expect(asked.has('resource')).toBe(false);
    expect(asked.get('prompt')).not.toBe('none');
    // The grant lacks api.write: the page says so (step_up_failed) and stays, with no call made on a
    // token that falls short and no other authorization request.
    await alert.filter({ hasText: 'did not grant what was asked for' }).waitFor();
    await log.settle();
    expect(authorizeRequests(log)).toHaveLength(authorizes + 1);
    expect(log.matching(idp.apiUrl + '/api/greeting', 'GET')).toHaveLength(calls);
    expect(page.url().startsWith(app.url)).toBe(true);
  });
});

describe('RFC 9470: an API that demands a recent sign-in', () => {
  const MAX_AGE_S = 3;
  const env = useEnv({ sensitiveMaxAge: MAX_AGE_S, extraConfig: (idp) => ({ apiUrl: idp.apiUrl + '/api/sensitive' }) });

  it('Sign in again asks for the password, and the repeated call succeeds with a fresh auth_time', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    const firstLogin = Date.now();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API', exact: true }).click();
    // Called again until the login is older than the API accepts.
    const again = page.getByRole('button', { name: 'Sign in again' });
    await expect
      .poll(
        async () => {
          if (await again.isVisible()) return true;
          await page
            .getByRole('button', { name: 'Call again' })
            .click({ timeout: 2000 })
            .catch(() => {});
          return again.isVisible();
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toBe(true);
    const authorizes = authorizeRequests(log).length;
    await again.click();
    await login(page, ALICE.username, ALICE.password);
    await page.getByRole('button', { name: 'Allow' }).or(page.getByTestId('api-result')).first().waitFor();
    if (await page.getByRole('button', { name: 'Allow' }).isVisible()) await consent(page, 'Allow');
    const result = page.getByTestId('api-result');
    await result.waitFor();
    expect(new URL(authorizeRequests(log)[authorizes].url).searchParams.get('max_age')).toBe(String(MAX_AGE_S));
    const answer = JSON.parse((await result.textContent()) ?? '{}') as { auth_time: number };
    expect(answer.auth_time * 1000).toBeGreaterThan(firstLogin);
  });
});

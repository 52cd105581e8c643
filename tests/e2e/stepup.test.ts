// The right token for every API, against the local provider: a per-API token (RFC 8707) for the demo
// API, step-up on its insufficient_scope challenge with the draft kept across the redirect, a second
// refusal that never redirects on its own, and RFC 9470's max_age step-up with auth_time checked.
import { describe, expect, it } from 'vitest';
import { authorizeRequests, callbacks, consent, formOf, login, tokenRequests, tokenResponses } from '../support/flows';
import { getWith } from '../support/node-client';
import { ALICE, readClaims, routeOf, signIn, useEnv } from './helpers';

const scopesOf = (url: string) => (new URL(url).searchParams.get('scope') ?? '').split(' ');

/** Headers of an RFC 6750 insufficient_scope answer the app at `appUrl` may read across origins. */
const challenge = (appUrl: string, scope: string) => ({
  'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  'access-control-allow-origin': new URL(appUrl).origin,
  'access-control-expose-headers': 'WWW-Authenticate',
});

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

describe('an API origin without an apis entry', () => {
  const env = useEnv({ extraConfig: { apis: {} } });

  it('insufficient_scope shows the scope and Grant access; a second refusal is an error, never another redirect', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    // The demo greeting asks for api.write, whatever the token.
    await context.route(idp.apiUrl + '/api/greeting', (route) =>
      route.request().method() === 'OPTIONS'
        ? route.continue()
        : route.fulfill({
            status: 403,
            headers: {
              'www-authenticate': 'Bearer error="insufficient_scope", scope="api.write"',
              'access-control-allow-origin': new URL(app.url).origin,
              'access-control-expose-headers': 'WWW-Authenticate',
            },
          }),
    );
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

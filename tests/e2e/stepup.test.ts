// The right token for every API, against the local provider: a per-API token (RFC 8707) for the demo
// API, step-up on its insufficient_scope challenge with the draft kept across the redirect, a second
// refusal that never redirects on its own, and RFC 9470's max_age step-up with auth_time checked.
import { describe, expect, it } from 'vitest';
import { authorizeRequests, consent, formOf, login, tokenRequests, tokenResponses } from '../support/flows';
import { getWith } from '../support/node-client';
import { ALICE, readClaims, signIn, useEnv } from './helpers';

const scopesOf = (url: string) => (new URL(url).searchParams.get('scope') ?? '').split(' ');

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
    // Only what the view keeps for its draft, gone once saved; never a token.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain('Kept across the redirect');
    for (const t of tokenResponses(log)) expect(stored).not.toContain(String(t.access_token));
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
    await page.getByRole('button', { name: 'Grant access' }).click();
    await page.getByRole('button', { name: 'Allow' }).or(page.getByRole('alert')).first().waitFor();
    if (await page.getByRole('button', { name: 'Allow' }).isVisible()) await consent(page, 'Allow');
    await page.waitForURL((url) => url.href.startsWith(app.url));
    // One interactive authorization for the session's scopes plus the missing one, no resource indicator.
    const stepUp = authorizeRequests(log).slice(authorizes);
    expect(stepUp).toHaveLength(1);
    const asked = new URL(stepUp[0].url).searchParams;
    expect(asked.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'api.write']));
    expect(asked.has('resource')).toBe(false);
    expect(asked.get('prompt')).not.toBe('none');
    // The provider does not know api.write: the page says so and stays.
    await alert.first().waitFor();
    await log.settle();
    expect(authorizeRequests(log)).toHaveLength(authorizes + 1);
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

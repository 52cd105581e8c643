// Issue 22 item 3: a sign-in link's hints reach the identity service. `#/signin?login_hint=…&ui_locales=…`
// puts both in the authorization request, as the browser sends it; invalid ones are dropped, and the
// sign-in still completes.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ALICE, readClaims, useEnv } from './helpers';
import { signInAs } from '../support/flows';

/** Every authorization request the page sends from now on, as it leaves the browser. */
function authorizationRequests(page: Page): URLSearchParams[] {
  const sent: URLSearchParams[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.isNavigationRequest() && url.pathname === '/connect/authorize') sent.push(url.searchParams);
  });
  return sent;
}

describe('sign-in hints', () => {
  const env = useEnv();

  it('#/signin?login_hint=bob&ui_locales=de: the authorization request carries both', async () => {
    const { page } = await env.open();
    const sent = authorizationRequests(page);
    await page.goto(`${env.stack.app.url}#/signin?login_hint=bob&ui_locales=de`);
    await page.getByLabel('Username').waitFor();
    expect(sent).toHaveLength(1);
    expect(sent[0].get('login_hint')).toBe('bob');
    expect(sent[0].get('ui_locales')).toBe('de');
    expect(sent[0].get('client_id')).toBe(env.stack.idp.clientId);
  });

  it('invalid hints are dropped, and the sign-in completes without them', async () => {
    const { page } = await env.open();
    const sent = authorizationRequests(page);
    const query = `login_hint=${encodeURIComponent('bob\u202e')}&ui_locales=${encodeURIComponent('de;q=1')}&returnTo=/profile`;
    await page.goto(`${env.stack.app.url}#/signin?${query}`);
    await signInAs(page, ALICE.username, ALICE.password, env.stack.app.url);
    expect((await readClaims(page)).preferred_username).toBe(ALICE.username);
    expect(sent).toHaveLength(1);
    expect(sent[0].has('login_hint')).toBe(false);
    expect(sent[0].has('ui_locales')).toBe(false);
  });
});

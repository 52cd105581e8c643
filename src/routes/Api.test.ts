// #/api: calls the configured apiUrl through auth and shows the JSON answer in data-testid="api-result".
import '@testing-library/svelte/vitest';
import { fireEvent, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { AuthError } from '../lib/auth';
import { createTestAuth, TEST_TOKEN } from '../lib/auth/testing';
import { ALICE, API_ORIGIN, API_URL, renderView, testConfig } from '../testing/render';
import Api from './Api.svelte';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** What the API may ask a step-up for (the instance's `stepUpScopes`): anything else is scope_not_allowed. */
const STEP_UP_SCOPES = ['api.write', ...Array.from({ length: 60 }, (_, i) => `scope${i}`)].join(' ');

/** A test auth for ALICE whose API answers with `answers` in turn, the last one repeated; records the requests. */
function apiAuth(...answers: (() => Response)[]) {
  const requests: Request[] = [];
  const handler = vi.fn((request: Request) => {
    requests.push(request);
    return answers[Math.min(requests.length, answers.length) - 1]();
  });
  return { auth: createTestAuth({ user: ALICE, apiOrigins: [API_ORIGIN], stepUpScopes: STEP_UP_SCOPES, handler }), requests };
}

const result = async () => JSON.parse((await screen.findByTestId('api-result')).textContent!);

describe('Api', () => {
  it('signed in: shows the answer of apiUrl, fetched with the access token', async () => {
    const { auth, requests } = apiAuth(() => json({ greeting: 'Hello, Alice Liddell' }));
    renderView(Api, auth);
    expect(await result()).toEqual({ greeting: 'Hello, Alice Liddell' });
    expect(requests).toHaveLength(1);
    expect(requests[0].method).toBe('GET');
    expect(requests[0].url).toBe(API_URL);
    expect(requests[0].headers.get('authorization')).toBe(`Bearer ${TEST_TOKEN}`);
  });

  it('shows progress in role="status" until the answer arrives', async () => {
    let answer!: (response: Response) => void;
    const auth = createTestAuth({
      user: ALICE,
      apiOrigins: [API_ORIGIN],
      handler: () => new Promise((resolve) => (answer = resolve)),
    });
    renderView(Api, auth);
    expect((await screen.findByRole('status')).textContent).toBe('Calling the API…');
    // The request reaches the API once auth.fetch has loaded: answer it then.
    await vi.waitFor(() => expect(answer).toBeTypeOf('function'));
    answer(json({ ok: true }));
    expect(await result()).toEqual({ ok: true });
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('renders the answer as text', async () => {
    const { auth } = apiAuth(() => json({ html: '<img src=x onerror=alert(1)>' }));
    renderView(Api, auth);
    const shown = await screen.findByTestId('api-result');
    expect(shown.querySelector('img')).toBeNull();
    expect(shown.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('"Call again" calls the API again and shows the new answer', async () => {
    let n = 0;
    const { auth, requests } = apiAuth(() => json({ n: ++n }));
    renderView(Api, auth);
    expect(await result()).toEqual({ n: 1 });
    await fireEvent.click(screen.getByRole('button', { name: 'Call again' }));
    await vi.waitFor(async () => expect(await result()).toEqual({ n: 2 }));
    expect(requests).toHaveLength(2);
  });

  it('a refused token is an alert with the OAuth code and "Try again" that calls again', async () => {
    const refused = () => {
      throw new AuthError('insufficient_scope', { oauthError: 'insufficient_scope', status: 403 });
    };
    const { auth, requests } = apiAuth(refused, () => json({ greeting: 'hi' }));
    renderView(Api, auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('does not include the permission');
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('insufficient_scope');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await result()).toEqual({ greeting: 'hi' });
    expect(requests).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  /** The API's answer when the token lacks api.write (RFC 6750 §3.1). */
  const asksForApiWrite = () =>
    new Response(null, {
      status: 403,
      headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="api.write"' },
    });

  it('insufficient_scope with the scope the API sent: an alert naming it and Grant access, which asks for it in this tab', async () => {
    const { auth, requests } = apiAuth(asksForApiWrite);
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Api, auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('api.write');
    await fireEvent.click(screen.getByRole('button', { name: 'Grant access' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ scope: 'api.write', returnTo: '/api' });
    // One call: nothing is repeated before the person is back.
    expect(requests).toHaveLength(1);
  });

  it('back from Grant access and refused again: the alert again, one call, and never a redirect on its own', async () => {
    const { auth, requests } = apiAuth(asksForApiWrite);
    const signIn = vi.spyOn(auth, 'signIn');
    // The page as it loads after the step-up's callback: it calls the API by itself, once.
    renderView(Api, auth);
    expect((await screen.findByRole('alert')).textContent).toContain('api.write');
    screen.getByRole('button', { name: 'Grant access' });
    await tick();
    expect(requests).toHaveLength(1);
    expect(signIn).not.toHaveBeenCalled();
    expect(screen.queryByTestId('api-result')).toBeNull();
  });

  it('interaction_required (a per-API token needs consent): Grant access asks for its scope', async () => {
    const { auth } = apiAuth(() => {
      throw new AuthError('interaction_required', { scope: 'orders.read' });
    });
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Api, auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('orders.read');
    await fireEvent.click(screen.getByRole('button', { name: 'Grant access' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ scope: 'orders.read', returnTo: '/api' });
  });

  it('a long scope from the API is shown whole, as text', async () => {
    const scope = Array.from({ length: 60 }, (_, i) => `scope${i}`).join(' ');
    const { auth } = apiAuth(
      () =>
        new Response(null, {
          status: 403,
          headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
        }),
    );
    renderView(Api, auth);
    const shown = (await screen.findByRole('alert')).querySelector('[data-scope]')!;
    expect(scope.length).toBeGreaterThan(400);
    expect(shown.textContent).toBe(scope);
    expect(shown.children).toHaveLength(0);
  });

  it('a scope beyond what the API may ask for: an error alert, with no Grant access and no sign-in', async () => {
    const { auth, requests } = apiAuth(
      () =>
        new Response(null, {
          status: 403,
          headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="api.write admin"' },
        }),
      () => json({ greeting: 'hi' }),
    );
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Api, auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('a permission this app may not request');
    expect(alert.textContent).not.toContain('admin');
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('insufficient_scope');
    expect(screen.queryByRole('button', { name: 'Grant access' })).toBeNull();
    expect(signIn).not.toHaveBeenCalled();
    await fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await result()).toEqual({ greeting: 'hi' });
    expect(requests).toHaveLength(2);
  });

  it('insufficient_user_authentication (RFC 9470): Sign in again asks for a sign-in within max_age', async () => {
    const challenge = () =>
      new Response(null, {
        status: 401,
        headers: { 'www-authenticate': 'Bearer error="insufficient_user_authentication", max_age=300' },
      });
    const { auth } = apiAuth(challenge);
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Api, auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('5 minutes');
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in again' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ max_age: 300, returnTo: '/api' });
  });

  it.each([
    [
      'acr_values alone: asks for them',
      'Bearer error="insufficient_user_authentication", acr_values="urn:mfa"',
      { acr_values: 'urn:mfa' },
    ],
    ['without a hint: asks for a fresh sign-in (max_age=0)', 'Bearer error="insufficient_user_authentication"', { max_age: 0 }],
  ])('insufficient_user_authentication with %s', async (_name, header, asked) => {
    const { auth } = apiAuth(() => new Response(null, { status: 401, headers: { 'www-authenticate': header } }));
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Api, auth);
    await fireEvent.click(await screen.findByRole('button', { name: 'Sign in again' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ ...asked, returnTo: '/api' });
  });

  it('an HTTP error shows its status and the start of the response text, as text', async () => {
    const { auth } = apiAuth(() => new Response('<b>down for maintenance</b>', { status: 503 }));
    renderView(Api, auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('HTTP 503');
    expect(alert.textContent).toContain('The service said: “<b>down for maintenance</b>”');
    expect(alert.querySelector('b')).toBeNull();
  });

  it('signed out: calls nothing, and "Sign in" starts a sign-in returning to /api; then the API is called', async () => {
    const handler = vi.fn(() => json({ greeting: 'hi' }));
    const auth = createTestAuth({ user: null, apiOrigins: [API_ORIGIN], handler });
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Api, auth);
    expect(document.body.textContent).toContain('Sign in to call the API.');
    expect(handler).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/api' });
    expect(await result()).toEqual({ greeting: 'hi' });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('signing out elsewhere removes the answer', async () => {
    const { auth } = apiAuth(() => json({ secret: 'of alice' }));
    renderView(Api, auth);
    await result();
    auth.signOut();
    await screen.findByRole('button', { name: 'Sign in' });
    expect(screen.queryByTestId('api-result')).toBeNull();
    expect(document.body.textContent).not.toContain('of alice');
  });

  it('without apiUrl: says there is nothing to call, and calls nothing', () => {
    const { auth, requests } = apiAuth(() => json({}));
    renderView(Api, auth, testConfig({ apiUrl: undefined }));
    expect(document.body.textContent).toContain('No apiUrl is configured');
    expect(screen.queryByTestId('api-result')).toBeNull();
    expect(screen.queryByRole('button')).toBeNull();
    expect(requests).toHaveLength(0);
  });
});

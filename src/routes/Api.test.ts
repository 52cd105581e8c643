// #/api: calls apiUrl with the bearer token and shows the JSON answer in data-testid="api-result".
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config';
import { useAppHarness } from '../testing/app-harness';
import {
  API_ORIGIN,
  API_URL,
  APP_URL,
  AUTH_URL,
  AUTHORIZE_URL,
  ACCOUNT_URL,
  CLIENT_ID,
  challenge,
  json,
} from '../testing/fake-idp';
import Api from './Api.svelte';

const h = useAppHarness();
const CONFIG = { accountUrl: ACCOUNT_URL, authUrl: AUTH_URL, clientId: CLIENT_ID, apiOrigins: [API_ORIGIN], apiUrl: API_URL };

/** The page reads the config main.ts loaded; load it through the real loader. */
async function loadAppConfig(raw: Record<string, unknown>) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json(raw)),
  );
  await loadConfig(APP_URL);
  h.idp.install();
}

beforeEach(() => loadAppConfig(CONFIG));

describe('Api', () => {
  it('signed in: shows the API answer, fetched with the bearer token', async () => {
    await h.signedIn('/api');
    render(Api);
    const result = await screen.findByTestId('api-result');
    expect(JSON.parse(result.textContent!)).toEqual({ greeting: 'Hello, Alice Liddell' });
    const [request] = h.idp.to(API_URL);
    expect(request.headers.get('authorization')).toBe(`Bearer ${h.idp.issued[0].access_token}`);
    expect(request.init.credentials).toBe('omit');
  });

  it('renders the answer as text', async () => {
    h.idp.api = () => json({ html: '<img src=x onerror=alert(1)>' });
    await h.signedIn('/api');
    render(Api);
    const result = await screen.findByTestId('api-result');
    expect(result.querySelector('img')).toBeNull();
    expect(result.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('an API failure is an alert with "Try again" that calls again', async () => {
    await h.signedIn('/api');
    let calls = 0;
    h.idp.api = (request, standard) => (++calls === 1 ? challenge(403, 'insufficient_scope') : standard(request));
    render(Api);
    const alert = await screen.findByRole('alert');
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('insufficient_scope');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByTestId('api-result');
    expect(h.idp.to(API_URL)).toHaveLength(2);
  });

  it('signed out: offers sign-in returning to /api, calls nothing', async () => {
    await h.signedOut('#/api');
    render(Api);
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(h.assign).toHaveBeenCalledTimes(1));
    expect(h.lastNavigation().startsWith(`${AUTHORIZE_URL}?`)).toBe(true);
    expect(h.idp.to(API_URL)).toHaveLength(0);
    await h.approveLastSignIn();
    expect(h.navigate).toHaveBeenLastCalledWith('/api');
  });

  it('without apiUrl: says there is nothing to call', async () => {
    const { apiUrl: _unused, ...withoutApi } = CONFIG;
    void _unused;
    await loadAppConfig(withoutApi);
    await h.signedIn();
    render(Api);
    expect(document.body.textContent).toContain('No apiUrl');
    expect(screen.queryByTestId('api-result')).toBeNull();
  });
});

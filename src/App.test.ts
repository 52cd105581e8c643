// The shell: progress while busy, the session's alert with "Try again", routes by hash, sign-out in the nav.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { useAppHarness } from './testing/app-harness';
import { ALICE, APP_URL, AUTHORIZE_URL, setPageUrl } from './testing/fake-idp';
import App from './App.svelte';

const h = useAppHarness();

function at(hash: string) {
  setPageUrl(APP_URL + hash);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

describe('App', () => {
  it('a cancelled sign-in: an alert saying so, the OAuth code, and "Try again" that starts a fresh attempt', async () => {
    await h.signedOut('#/api');
    const { signIn } = await import('./lib/auth');
    await signIn({ returnTo: '/api' });
    const first = h.lastNavigation();
    await h.pageLoad(`${APP_URL}?${h.idp.deny(first, 'access_denied')}`);
    at('#/');
    render(App);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('cancelled');
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('access_denied');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await vi.waitFor(() => expect(h.assign).toHaveBeenCalledTimes(2));
    const second = h.lastNavigation();
    expect(second.startsWith(`${AUTHORIZE_URL}?`)).toBe(true);
    expect(new URL(second).searchParams.get('state')).not.toBe(new URL(first).searchParams.get('state'));
    await h.approveLastSignIn();
    expect(h.navigate).toHaveBeenLastCalledWith('/api');
  });

  it('shows progress in role="status" while redirecting', async () => {
    await h.signedOut();
    at('#/');
    render(App);
    await fireEvent.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('status')).textContent).toMatch(/identity service/);
  });

  it('routes by hash and offers "Sign out" when signed in', async () => {
    await h.signedIn();
    at('#/');
    render(App);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toContain(ALICE.name);
    at('#/profile');
    await screen.findByText(ALICE.email as string);
    const signOuts = screen.getAllByRole('button', { name: 'Sign out' });
    await fireEvent.click(signOuts[0]);
    await vi.waitFor(() => expect(document.body.textContent).not.toContain(ALICE.email as string));
  });

  it('an unknown path shows the not-found page', async () => {
    await h.signedOut();
    at('#/nowhere');
    render(App);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toMatch(/not found/i);
  });
});

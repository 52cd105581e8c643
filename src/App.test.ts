// The shell: the session's user and "Sign out" in the header, progress while busy, the session's alert
// with a retry and its offline status, routes by hash, and the skip link inside the banner.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Auth } from './lib/auth';
import { createTestAuth } from './lib/auth/testing';
import { ALICE, at, scriptedAuth, session, testConfig } from './testing/render';
import App from './App.svelte';

const renderApp = (auth: Auth) => render(App, { props: { auth, config: testConfig() } });
const heading = () => screen.findByRole('heading', { level: 1 });

beforeEach(() => at('#/'));

describe('App', () => {
  it("signed in: the header shows the person's username and a Sign out button", async () => {
    renderApp(createTestAuth({ user: ALICE }));
    const banner = screen.getByRole('banner');
    expect(within(banner).getByText(ALICE.preferred_username)).toBeTruthy();
    expect(within(banner).getByRole('button', { name: 'Sign out' })).toBeTruthy();
    expect((await heading()).textContent).toContain(ALICE.name);
  });

  it('signed out: the header has neither a username nor Sign out', async () => {
    renderApp(createTestAuth({ user: null }));
    expect((await heading()).textContent).toBe('Welcome');
    expect(within(screen.getByRole('banner')).queryByRole('button')).toBeNull();
  });

  it('Sign out in the header signs out, and nothing of the person stays on screen', async () => {
    const auth = createTestAuth({ user: ALICE });
    const signOut = vi.spyOn(auth, 'signOut');
    renderApp(auth);
    await fireEvent.click(within(screen.getByRole('banner')).getByRole('button', { name: 'Sign out' }));
    expect(signOut).toHaveBeenCalledTimes(1);
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(document.body.textContent).not.toContain(ALICE.preferred_username);
    expect(document.body.textContent).not.toContain(ALICE.name);
  });

  it('a failed sign-in: an alert saying so, the OAuth code, and "Try again" that signs in back to its returnTo', async () => {
    const { auth } = scriptedAuth(
      session('error', { error: { code: 'cancelled', oauthError: 'access_denied', returnTo: '/api' } }),
    );
    renderApp(auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('cancelled');
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('access_denied');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(auth.signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/api' });
  });

  it('an expired session: "Sign in again" returns to where the person was', async () => {
    const { auth } = scriptedAuth(session('expired', { error: { code: 'session_expired', returnTo: '/profile?tab=2' } }));
    renderApp(auth);
    await fireEvent.click(within(await screen.findByRole('alert')).getByRole('button', { name: 'Sign in again' }));
    expect(auth.signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/profile?tab=2' });
  });

  it('an expired session without a returnTo: "Sign in again" returns to the page shown', async () => {
    at('#/api?x=1');
    const { auth } = scriptedAuth(session('expired', { error: { code: 'session_expired' } }));
    renderApp(auth);
    await fireEvent.click(within(await screen.findByRole('alert')).getByRole('button', { name: 'Sign in again' }));
    expect(auth.signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/api?x=1' });
  });

  it.each([
    ['expired', session('expired', { error: { code: 'session_expired' }, known: true })],
    ['failed later (a step-up, a restore)', session('error', { error: { code: 'invalid_grant' }, known: true })],
  ])('a session that %s still offers Sign out in the header, which signs out and shows the start page', async (_name, state) => {
    at('#/api');
    const { auth } = scriptedAuth(state);
    renderApp(auth);
    await fireEvent.click(within(screen.getByRole('banner')).getByRole('button', { name: 'Sign out' }));
    expect(auth.signOut).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(location.hash).toBe('#/'));
  });

  it('offline: an unobtrusive status says the session is kept, in a live region there before it, and gone once renewed', async () => {
    const signedIn = session('signed-in', { user: ALICE, expiresAt: Date.now() + 60_000 });
    const { auth, set } = scriptedAuth(signedIn);
    renderApp(auth);
    const status = await screen.findByRole('status');
    expect(status.textContent).toBe('');
    set({ ...signedIn, offline: true });
    await vi.waitFor(() => expect(status.textContent).toBe('Offline — your session is kept; reconnecting…'));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(within(screen.getByRole('banner')).getByRole('button', { name: 'Sign out' })).toBeTruthy();
    set(signedIn);
    await vi.waitFor(() => expect(status.textContent).toBe(''));
  });

  it.each([
    ['an anonymous visitor', session('signed-out')],
    ['loading', session('loading')],
    ['a first sign-in on its way', session('redirecting')],
    ['a stale callback', session('signed-out', { error: { code: 'unknown_transaction' } })],
  ])('the header offers no Sign out to %s', async (_name, state) => {
    const { auth } = scriptedAuth(state);
    renderApp(auth);
    await vi.waitFor(() =>
      expect(screen.queryByRole('alert') ?? screen.queryByRole('status') ?? screen.queryByRole('heading')).toBeTruthy(),
    );
    expect(within(screen.getByRole('banner')).queryByRole('button')).toBeNull();
  });

  it('a failed first sign-in: the alert and "Sign in", but no Sign out, as no one was signed in', async () => {
    const { auth } = scriptedAuth(session('error', { error: { code: 'cancelled', oauthError: 'access_denied' }, known: false }));
    renderApp(auth);
    expect((await screen.findByRole('alert')).textContent).toContain('Sign-in was cancelled.');
    expect(screen.getByRole('main').querySelector('button.primary')?.textContent).toBe('Sign in');
    expect(within(screen.getByRole('banner')).queryByRole('button')).toBeNull();
  });

  it('an expired session says it ended, offers "Sign in again", and Sign out beside it', async () => {
    const { auth } = scriptedAuth(session('expired', { error: { code: 'session_expired' } }));
    renderApp(auth);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Your session has expired.');
    expect(within(alert).getByRole('button', { name: 'Sign in again' })).toBeTruthy();
    expect(within(screen.getByRole('banner')).getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('the header follows the session as it changes: Sign out while a person is known, and only then', async () => {
    const { auth, set } = scriptedAuth(session('loading'));
    renderApp(auth);
    const signOut = () => within(screen.getByRole('banner')).queryByRole('button', { name: 'Sign out' });
    const states: [ReturnType<typeof session>, boolean][] = [
      [session('error', { error: { code: 'token_error' } }), false],
      [session('signed-in', { user: ALICE, expiresAt: Date.now() + 60_000 }), true],
      [session('redirecting', { known: true }), true],
      [session('error', { error: { code: 'step_up_failed' }, known: true }), true],
      [session('expired', { error: { code: 'session_expired' } }), true],
      [session('signed-out'), false],
    ];
    for (const [state, shown] of states) {
      set(state);
      await vi.waitFor(() => expect(!!signOut(), state.status).toBe(shown));
    }
  });

  it('"Signing you in…" in role="status" while loading, then the page', async () => {
    const { auth, set } = scriptedAuth(session('loading'));
    renderApp(auth);
    expect(screen.getByRole('status').textContent).toBe('Signing you in…');
    expect(screen.queryByRole('heading')).toBeNull();
    set(session('signed-in', { user: ALICE, expiresAt: Date.now() + 60_000 }));
    expect((await heading()).textContent).toContain(ALICE.name);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('shows progress in role="status" while redirecting to the identity service', async () => {
    const { auth, set } = scriptedAuth(session('signed-out'));
    vi.mocked(auth.signIn).mockImplementation(async () => set(session('redirecting')));
    renderApp(auth);
    await fireEvent.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('status')).textContent).toBe('Taking you to the identity service…');
  });

  it('routes by hash', async () => {
    renderApp(createTestAuth({ user: ALICE }));
    expect((await heading()).textContent).toContain(ALICE.name);
    expect(screen.getByRole('link', { name: 'API' }).hasAttribute('aria-current')).toBe(false);
    at('#/profile');
    await screen.findByText(ALICE.email);
    at('#/api');
    await vi.waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Demo API'));
    // The router's location marks the page's link for people and assistive technology.
    await vi.waitFor(() => expect(screen.getByRole('link', { name: 'API' }).getAttribute('aria-current')).toBe('page'));
    expect(screen.getByRole('link', { name: 'Notes' }).hasAttribute('aria-current')).toBe(false);
  });

  it('an unknown path shows the not-found page', async () => {
    at('#/nowhere');
    renderApp(createTestAuth({ user: null }));
    expect((await heading()).textContent).toMatch(/not found/i);
  });

  it("the skip link sits inside the banner and moves focus to the page's heading", async () => {
    renderApp(createTestAuth({ user: null }));
    const skip = within(screen.getByRole('banner')).getByRole('link', { name: 'Skip to content' });
    const h1 = await heading();
    await fireEvent.click(skip);
    await vi.waitFor(() => expect(document.activeElement).toBe(h1));
    expect(location.hash).toBe('#/');
  });
});

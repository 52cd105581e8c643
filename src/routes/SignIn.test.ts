// #/signin?returnTo=/route: starts sign-in at once, exactly once, honouring only app routes.
import '@testing-library/svelte/vitest';
import { render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { useAppHarness } from '../testing/app-harness';
import { APP_URL, AUTHORIZE_URL, setPageUrl } from '../testing/fake-idp';
import { session } from '../lib/auth';
import { get } from 'svelte/store';
import { tick } from 'svelte';
import SignIn from './SignIn.svelte';

const h = useAppHarness();

/** Puts the router at `hash` (the router follows hashchange events). */
function at(hash: string) {
  setPageUrl(APP_URL + hash);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

describe('SignIn', () => {
  it.each([
    ['/api', '/api'],
    ['/profile', '/profile'],
    ['//evil.example', '/profile'],
    ['https://evil.example/', '/profile'],
    ['/signin', '/profile'],
  ])('returnTo=%s: starts one sign-in at once and comes back to %s', async (returnTo, route) => {
    await h.signedOut();
    at(`#/signin?returnTo=${encodeURIComponent(returnTo)}`);
    render(SignIn);
    await vi.waitFor(() => expect(h.assign).toHaveBeenCalledTimes(1));
    expect(h.lastNavigation().startsWith(`${AUTHORIZE_URL}?`)).toBe(true);
    expect(screen.getByRole('status')).toBeTruthy();
    await h.approveLastSignIn();
    expect(h.navigate).toHaveBeenLastCalledWith(route);
  });

  it('without returnTo comes back to /profile', async () => {
    await h.signedOut();
    at('#/signin');
    render(SignIn);
    await vi.waitFor(() => expect(h.assign).toHaveBeenCalledTimes(1));
    await h.approveLastSignIn();
    expect(h.navigate).toHaveBeenLastCalledWith('/profile');
  });

  it('after a failed attempt it does not start again by itself (no loop)', async () => {
    await h.signedOut();
    // A forged callback: signed out with a notice.
    await h.pageLoad(`${APP_URL}?code=forged&state=forged`);
    expect(get(session)).toMatchObject({ status: 'signed-out', error: { code: 'unknown_transaction' } });
    at('#/signin?returnTo=/api');
    render(SignIn);
    await tick();
    // signIn() would have switched the session to "redirecting" at once.
    expect(get(session).status).toBe('signed-out');
    expect(h.assign).not.toHaveBeenCalled();
    expect(h.idp.requests).toHaveLength(0);
  });

  it('when already signed in, goes straight to returnTo', async () => {
    await h.signedIn();
    at('#/signin?returnTo=/api');
    render(SignIn);
    await vi.waitFor(() => expect(location.hash).toBe('#/api'));
    expect(h.assign.mock.calls).toHaveLength(1); // only the sign-in of h.signedIn()
  });
});

// #/signin?returnTo=/route: starts sign-in at once, exactly once, honouring only app routes, and gives
// its history entry to the start page so Back from the identity service never starts it again.
import '@testing-library/svelte/vitest';
import { screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import { ALICE, at, renderView, scriptedAuth, session } from '../testing/render';
import SignIn from './SignIn.svelte';

beforeEach(() => at('#/'));

describe('SignIn', () => {
  it.each([
    ['/api', '/api'],
    ['/profile', '/profile'],
    ['/', '/'],
    ['/api?x=1', '/api?x=1'],
    ['//evil.example', undefined],
    ['https://evil.example/', undefined],
    ['/..//evil.example', undefined],
    ['/signin', undefined],
    ['/signin?returnTo=/api', undefined],
    ['/nowhere', undefined],
  ])('returnTo=%s: starts one sign-in at once, returning to %s (else the profile)', async (returnTo, route) => {
    const auth = createTestAuth({ user: null });
    const signIn = vi.spyOn(auth, 'signIn');
    at(`#/signin?returnTo=${encodeURIComponent(returnTo)}`);
    renderView(SignIn, auth);
    await vi.waitFor(() => expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: route ?? '/profile' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('without returnTo starts a sign-in that returns to the profile', async () => {
    const auth = createTestAuth({ user: null });
    const signIn = vi.spyOn(auth, 'signIn').mockResolvedValue();
    at('#/signin');
    renderView(SignIn, auth);
    await vi.waitFor(() => expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/profile' }));
  });

  it.each([
    ['login_hint=bob&ui_locales=de', { login_hint: 'bob', ui_locales: 'de' }],
    ['login_hint=bob%40example.test&ui_locales=de-CH%20en', { login_hint: 'bob@example.test', ui_locales: 'de-CH en' }],
    ['login_hint=%00bob&ui_locales=de', { ui_locales: 'de' }],
    [`login_hint=bob&ui_locales=${encodeURIComponent('de;q=1')}`, { login_hint: 'bob' }],
    [`login_hint=${'b'.repeat(257)}`, {}],
    ['prompt=consent&extraParams=x', {}],
  ])('?%s passes the valid hints of the link to the sign-in, and drops the others', async (query, hints) => {
    const auth = createTestAuth({ user: null });
    const signIn = vi.spyOn(auth, 'signIn').mockResolvedValue();
    at(`#/signin?returnTo=/api&${query}`);
    renderView(SignIn, auth);
    await vi.waitFor(() => expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/api', ...hints }));
  });

  it('as the sign-in starts, the start page takes over this history entry: Back from the provider lands there', async () => {
    const auth = createTestAuth({ user: null });
    vi.spyOn(auth, 'signIn').mockResolvedValue();
    at('#/signin?returnTo=/api');
    const entries = history.length;
    renderView(SignIn, auth);
    await vi.waitFor(() => expect(location.hash).toBe('#/'));
    expect(history.length).toBe(entries);
  });

  it.each([
    ['/api', '#/api'],
    ['/api?x=1', '#/api?x=1'],
    ['//evil.example', '#/profile'],
    [undefined, '#/profile'],
  ])('once signed in after returnTo=%s, replaces this page with %s', async (returnTo, hash) => {
    const auth = createTestAuth({ user: null });
    at(returnTo === undefined ? '#/signin' : `#/signin?returnTo=${encodeURIComponent(returnTo)}`);
    const entries = history.length;
    renderView(SignIn, auth);
    await vi.waitFor(() => expect(location.hash).toBe(hash));
    expect(auth.session.current.status).toBe('signed-in');
    // The router's replace(): the sign-in page's entry is replaced, so Back does not return to it.
    expect(history.length).toBe(entries);
  });

  it('when already signed in, goes straight to returnTo without a sign-in', async () => {
    const auth = createTestAuth({ user: ALICE });
    const signIn = vi.spyOn(auth, 'signIn');
    at('#/signin?returnTo=/api');
    renderView(SignIn, auth);
    await vi.waitFor(() => expect(location.hash).toBe('#/api'));
    expect(signIn).not.toHaveBeenCalled();
  });

  it.each([
    ['a stale link notice', session('signed-out', { error: { code: 'unknown_transaction' } })],
    ['a failed sign-in', session('error', { error: { code: 'cancelled', oauthError: 'access_denied', returnTo: '/api' } })],
  ])('after %s it does not start again by itself (no loop)', async (_name, state) => {
    const { auth } = scriptedAuth(state);
    at('#/signin?returnTo=/api');
    renderView(SignIn, auth);
    await tick();
    expect(auth.signIn).not.toHaveBeenCalled();
    expect(screen.queryByRole('status')).toBeNull();
    expect(document.body.textContent).toContain('Sign-in did not start');
  });

  it('waits while the session is loading, then starts exactly once even if the session returns to signed out', async () => {
    const { auth, set } = scriptedAuth(session('loading'));
    at('#/signin?returnTo=/api');
    renderView(SignIn, auth);
    await tick();
    expect(auth.signIn).not.toHaveBeenCalled();
    set(session('signed-out'));
    await vi.waitFor(() => expect(auth.signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/api' }));
    set(session('redirecting'));
    await tick();
    set(session('signed-out'));
    await tick();
    expect(auth.signIn).toHaveBeenCalledTimes(1);
  });
});

// #/profile: the four claims (absent ones "—") of the session's user, "Sign out", sign-in when signed out.
import '@testing-library/svelte/vitest';
import { fireEvent, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import { ALICE, renderView } from '../testing/render';
import Profile from './Profile.svelte';

const claim = (name: string) => document.querySelector(`[data-claim="${name}"]`)?.textContent;

describe('Profile', () => {
  it('signed out: no claims, and "Sign in" starts a sign-in that comes back to /profile', async () => {
    const auth = createTestAuth({ user: null });
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Profile, auth);
    expect(document.querySelector('[data-claim]')).toBeNull();
    expect(document.body.textContent).toContain('Sign in to see your profile.');
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ returnTo: '/profile' });
    await vi.waitFor(() => expect(claim('sub')).toBe('test-user'));
  });

  it('signed in: shows the four claims of the session at once, without any request', () => {
    const handler = vi.fn(() => new Response('{}'));
    renderView(Profile, createTestAuth({ user: ALICE, handler }));
    expect(claim('sub')).toBe(ALICE.sub);
    expect(claim('email')).toBe(ALICE.email);
    expect(claim('name')).toBe(ALICE.name);
    expect(claim('preferred_username')).toBe(ALICE.preferred_username);
    expect(handler).not.toHaveBeenCalled();
  });

  it('an absent claim is shown as "—"', () => {
    renderView(Profile, createTestAuth({ user: { sub: ALICE.sub, name: ALICE.name } }));
    expect(claim('name')).toBe(ALICE.name);
    expect(claim('email')).toBe('—');
    expect(claim('preferred_username')).toBe('—');
  });

  it('"Sign out" signs out once, and nothing of the person stays on screen', async () => {
    const auth = createTestAuth({ user: ALICE });
    const signOut = vi.spyOn(auth, 'signOut');
    renderView(Profile, auth);
    await fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(signOut).toHaveBeenCalledTimes(1);
    expect(auth.session.current.status).toBe('signed-out');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(document.querySelector('[data-claim]')).toBeNull();
    expect(document.body.textContent).not.toContain(ALICE.email);
  });
});

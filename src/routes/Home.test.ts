// The start page per session status: a "Sign in" button, or a greeting and a link to the profile.
import '@testing-library/svelte/vitest';
import { fireEvent, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import { ALICE, renderView } from '../testing/render';
import Home from './Home.svelte';

const heading = () => screen.getByRole('heading', { level: 1 }).textContent;

describe('Home', () => {
  it('signed out: a "Sign in" button that starts a sign-in with the default return (the profile), then greets', async () => {
    const auth = createTestAuth({ user: null });
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Home, auth);
    expect(heading()).toBe('Welcome');
    expect(screen.queryByRole('link', { name: 'Your profile' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(signIn.mock.calls[0][0]?.returnTo).toBeUndefined();
    await vi.waitFor(() => expect(heading()).toBe('Hello, there'));
  });

  it("signed in: a heading with the person's name and a link to the profile", () => {
    renderView(Home, createTestAuth({ user: ALICE }));
    expect(heading()).toBe('Hello, Alice Liddell');
    expect(screen.getByRole('link', { name: 'Your profile' }).getAttribute('href')).toBe('#/profile');
    expect(screen.getByRole('link', { name: 'Call the demo API' }).getAttribute('href')).toBe('#/api');
    expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull();
  });

  it('signed in without a name: greets by username', () => {
    renderView(Home, createTestAuth({ user: { preferred_username: 'alice' } }));
    expect(heading()).toBe('Hello, alice');
  });

  it('follows the session: signing out elsewhere turns the greeting into "Sign in"', async () => {
    const auth = createTestAuth({ user: ALICE });
    renderView(Home, auth);
    auth.signOut();
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(document.body.textContent).not.toContain(ALICE.name);
  });
});

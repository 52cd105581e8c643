// The start page and #/profile: "Sign in" when signed out; a greeting and the four claims (absent ones
// "—") of the session's user when signed in.
import '@testing-library/svelte/vitest';
import { fireEvent, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import { ALICE, renderView } from '../testing/render';
import Home from './Home.svelte';

const heading = () => screen.getByRole('heading', { level: 1 }).textContent;
const claim = (name: string) => document.querySelector(`[data-claim="${name}"]`)?.textContent;

describe('Home', () => {
  it('signed out: no claims, and "Sign in" starts a sign-in that returns to the profile, then greets', async () => {
    const auth = createTestAuth({ user: null });
    const signIn = vi.spyOn(auth, 'signIn');
    renderView(Home, auth);
    expect(heading()).toBe('Welcome');
    expect(document.querySelector('[data-claim]')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(signIn).toHaveBeenCalledTimes(1);
    expect(signIn.mock.calls[0][0]?.returnTo).toBe('/profile');
    await vi.waitFor(() => expect(heading()).toBe('Hello, there'));
    expect(claim('sub')).toBe('test-user');
  });

  it("signed in: a heading with the person's name and the four claims of the session, without any request", () => {
    const handler = vi.fn(() => new Response('{}'));
    renderView(Home, createTestAuth({ user: ALICE, handler }));
    expect(heading()).toBe('Hello, Alice Liddell');
    expect(claim('sub')).toBe(ALICE.sub);
    expect(claim('email')).toBe(ALICE.email);
    expect(claim('name')).toBe(ALICE.name);
    expect(claim('preferred_username')).toBe(ALICE.preferred_username);
    expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull();
    expect(handler).not.toHaveBeenCalled();
  });

  it('signed in without a name: greets by username, and an absent claim is shown as "—"', () => {
    renderView(Home, createTestAuth({ user: { preferred_username: 'alice' } }));
    expect(heading()).toBe('Hello, alice');
    expect(claim('name')).toBe('—');
    expect(claim('email')).toBe('—');
  });

  it('follows the session: signing out elsewhere turns the profile into "Sign in", nothing of the person left', async () => {
    const auth = createTestAuth({ user: ALICE });
    renderView(Home, auth);
    auth.signOut();
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(document.querySelector('[data-claim]')).toBeNull();
    expect(document.body.textContent).not.toContain(ALICE.name);
    expect(document.body.textContent).not.toContain(ALICE.email);
  });
});

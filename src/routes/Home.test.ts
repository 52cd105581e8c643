// The start page per session status: a "Sign in" button, or a greeting and a link to the profile.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { useAppHarness } from '../testing/app-harness';
import { ALICE, AUTHORIZE_URL } from '../testing/fake-idp';
import Home from './Home.svelte';

const h = useAppHarness();

describe('Home', () => {
  it('signed out: a "Sign in" button that goes to the identity service and comes back to the profile', async () => {
    await h.signedOut();
    render(Home);
    expect(screen.queryByRole('link', { name: 'Your profile' })).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(h.assign).toHaveBeenCalledTimes(1));
    expect(h.lastNavigation().startsWith(`${AUTHORIZE_URL}?`)).toBe(true);
    await h.approveLastSignIn();
    expect(h.navigate).toHaveBeenLastCalledWith('/profile');
  });

  it("signed in: a heading with the person's name and a link to the profile", async () => {
    await h.signedIn();
    render(Home);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toContain(ALICE.name);
    expect(screen.getByRole('link', { name: 'Your profile' }).getAttribute('href')).toBe('#/profile');
    expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull();
  });

  it('signed in without a name: greets by username', async () => {
    h.idp.user = { sub: ALICE.sub, preferred_username: 'alice' };
    await h.signedIn();
    render(Home);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('alice');
  });

  it('follows the session: signing out elsewhere turns the greeting into "Sign in"', async () => {
    await h.signedIn();
    render(Home);
    const { signOut } = await import('../lib/auth');
    signOut();
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(screen.queryByText(ALICE.name as string, { exact: false })).toBeNull();
  });
});

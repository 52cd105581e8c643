// #/profile: the four claims (absent ones "—"), "Sign out", sign-in when signed out, alerts on failure.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { useAppHarness } from '../testing/app-harness';
import { ALICE, AUTHORIZE_URL, FakeBroadcastChannel, USERINFO_URL, allStorage } from '../testing/fake-idp';
import Profile from './Profile.svelte';

const h = useAppHarness();

const claim = (name: string) => document.querySelector(`[data-claim="${name}"]`)?.textContent;

describe('Profile', () => {
  it('signed out: offers sign-in that comes back to /profile', async () => {
    await h.signedOut('#/profile');
    render(Profile);
    expect(document.querySelector('[data-claim]')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(h.assign).toHaveBeenCalledTimes(1));
    expect(h.lastNavigation().startsWith(`${AUTHORIZE_URL}?`)).toBe(true);
    await h.approveLastSignIn();
    expect(h.navigate).toHaveBeenLastCalledWith('/profile');
  });

  it('signed in: shows the four claims of the signed-in person at once, without a second userinfo request', async () => {
    await h.signedIn();
    const before = h.idp.to(USERINFO_URL).length;
    render(Profile);
    await screen.findByText(ALICE.email as string);
    expect(claim('sub')).toBe(ALICE.sub);
    expect(claim('email')).toBe(ALICE.email);
    expect(claim('name')).toBe(ALICE.name);
    expect(claim('preferred_username')).toBe(ALICE.preferred_username);
    expect(h.idp.to(USERINFO_URL).length).toBe(before);
  });

  it('an absent claim is shown as "—"', async () => {
    h.idp.user = { sub: ALICE.sub, name: 'Alice Liddell' };
    await h.signedIn();
    render(Profile);
    await screen.findByText('Alice Liddell');
    expect(claim('email')).toBe('—');
    expect(claim('preferred_username')).toBe('—');
  });

  it('"Sign out" signs out here and in other tabs, and nothing of the person stays on screen', async () => {
    await h.signedIn();
    render(Profile);
    await screen.findByText(ALICE.email as string);
    await fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(document.querySelector('[data-claim]')).toBeNull();
    expect(document.body.textContent).not.toContain(ALICE.email as string);
    expect(FakeBroadcastChannel.posted.map((m) => m.name)).toEqual(['auth']);
    expect(allStorage()).toBe('');
    expect(h.navigate).toHaveBeenLastCalledWith('/');
  });
});

// The page's events that keep the session right (page.ts), through an instance on happy-dom's window:
// a page back from the back/forward cache shows neither an endless redirect nor a person another tab
// signed out.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../../testing/auth-harness';
import { NAMES } from '../../testing/fake-idp';

describe('through an instance', () => {
  const h = useAuthHarness();

  it('a page restored from the back/forward cache after a sign-out elsewhere shows nothing of the user', async () => {
    const tab = await h.signIn();
    localStorage.removeItem(NAMES.key('hint')); // what the other tab's sign-out left behind
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    expect(tab.state.user).toBeNull();
  });

  it('Back from the identity service to a cached page that began a sign-in shows it as before, not an endless redirect', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
  });

  it('a page restored from the back/forward cache while still signed in stays signed in', async () => {
    const tab = await h.signIn();
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(tab.state.status).toBe('signed-in');
  });
});

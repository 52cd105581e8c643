// auth.settled(): what a load function (SvelteKit's, a router's) awaits before auth.fetch. It resolves
// once start() has settled the session, whichever way: a callback, another tab's session, no session,
// a failure. It never resolves with `loading` or `redirecting` in a browser. (On a server: ssr.test.ts.)
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Auth, SessionState } from '.';
import { useAuthHarness } from '../../testing/auth-harness';
import { API_URL, APP_URL, setPageUrl } from '../../testing/fake-idp';
import { createTestAuth } from './testing';

const h = useAuthHarness();

/** Whether `promise` has resolved after the pending promise turns, and with what. */
async function peek<T>(promise: Promise<T>): Promise<{ value?: T; resolved: boolean }> {
  let out: { value?: T; resolved: boolean } = { resolved: false };
  void promise.then((value) => (out = { value, resolved: true }));
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
  return out;
}

describe('auth.settled()', () => {
  it("is typed by the instance's claims", () => {
    expectTypeOf<Auth<{ sub: string; role: string }>['settled']>().toEqualTypeOf<
      () => Promise<SessionState<{ sub: string; role: string }>>
    >();
  });

  it('waits for start(): before it the session is loading, and a load awaiting it would see nobody', async () => {
    const tab = h.newTab();
    const settled = tab.auth.settled();
    expect(await peek(settled)).toEqual({ resolved: false });
    await tab.auth.start();
    expect(await settled).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null, known: false });
  });

  it('resolves signed-in after a callback, asked before start() completes it; auth.fetch then carries the token', async () => {
    const authorizeUrl = await h.startSignIn({ returnTo: '/orders' });
    setPageUrl(`${APP_URL}?${h.idp.approve(authorizeUrl)}`);
    const tab = h.newTab();
    const settled = tab.auth.settled();
    const started = tab.auth.start();
    const session = await settled;
    expect(session.status).toBe('signed-in');
    expect(session.user?.name).toBe('Alice Liddell');
    expect(await (await tab.auth.fetch(API_URL)).json()).toEqual({ greeting: 'Hello, Alice Liddell' });
    expect(await started).toEqual({ returnTo: '/orders' });
  });

  it("resolves signed-in in a tab that adopts another tab's session, with no request to the provider", async () => {
    await h.signIn();
    const requests = h.idp.requests.length;
    setPageUrl(`${APP_URL}orders`);
    const tab = h.newTab();
    const settled = tab.auth.settled();
    void tab.auth.start();
    expect((await settled).status).toBe('signed-in');
    expect(h.idp.requests.length).toBe(requests);
  });

  it('resolves at once, with the session as it is, once settled; and again after every later change', async () => {
    const tab = await h.signIn();
    expect(await peek(tab.auth.settled())).toEqual({ resolved: true, value: tab.state });
    tab.auth.signOut();
    expect((await tab.auth.settled()).status).toBe('signed-out');
  });

  it('resolves with the error of a failed callback', async () => {
    const denied = h.idp.deny(await h.startSignIn());
    setPageUrl(`${APP_URL}?${denied}`);
    const tab = h.newTab();
    void tab.auth.start();
    expect(await tab.auth.settled()).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
  });

  it('stays pending while a sign-in leaves the page (redirecting), and settles when Back brings the page back', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
    const settled = tab.auth.settled();
    expect(await peek(settled)).toEqual({ resolved: false });
    // Back from the identity service, out of the back/forward cache.
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(await peek(settled)).toEqual({
      resolved: true,
      value: { status: 'signed-out', user: null, expiresAt: null, error: null, known: false },
    });
  });

  it('stays pending while a silent restore leaves the page', async () => {
    await h.signIn();
    await h.closeTabs();
    h.reloaded = true;
    const tab = h.newTab();
    const settled = tab.auth.settled();
    await tab.auth.start();
    expect(tab.state.status).toBe('redirecting');
    expect(await peek(settled)).toEqual({ resolved: false });
  });
});

describe("the test kit's settled()", () => {
  it('resolves as production does: signed in, signed out, or the failed state it starts in', async () => {
    expect((await createTestAuth({ user: { name: 'Ada' } }).settled()).user).toEqual({ sub: 'test-user', name: 'Ada' });
    expect((await createTestAuth({ user: null }).settled()).status).toBe('signed-out');
    expect((await createTestAuth({ status: 'expired' }).settled()).error).toEqual({ code: 'session_expired' });
    expect(await peek(createTestAuth({ status: 'loading' }).settled())).toEqual({ resolved: false });
  });
});

// postLogoutRedirectUri: the provider's sign-out brings the person back to a page the app names (its
// start page), not to the callback route. start() there takes the return (one `state`, matched once)
// and removes it from the URL; every other page, and any other query there, is left alone.
import { describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../../config';
import { useAuthHarness } from '../../testing/auth-harness';
import { APP_URL, END_SESSION_URL, REVOCATION_URL } from '../../testing/fake-idp';
import { takeSignOutReturn } from './signin';

const CALLBACK = `${APP_URL}callback`;
const LANDING = `${APP_URL}signed-out?lang=en`;

describe('with postLogoutRedirectUri', () => {
  const h = useAuthHarness({ endSessionUrl: END_SESSION_URL, revocationUrl: REVOCATION_URL, redirectUri: CALLBACK });
  // The harness passes what the app's config holds on to createAuth, this option included.
  const config = () => ({ ...h.config, postLogoutRedirectUri: LANDING }) as AppConfig;
  const loadAt = (url: string) => h.loadAt(url, config());
  const signIn = async () => {
    const tab = await loadAt(`${CALLBACK}?${h.idp.approve(await h.startSignIn({ config: config() }))}`);
    expect(tab.state.status).toBe('signed-in');
    return tab;
  };
  const signOut = async (tab: { auth: { signOut(): void } }) => {
    tab.auth.signOut();
    await vi.waitFor(() => expect(h.lastNavigation().startsWith(END_SESSION_URL)).toBe(true));
    return new URL(h.lastNavigation()).searchParams;
  };

  it('is the post_logout_redirect_uri of the end-session request', async () => {
    const sent = await signOut(await signIn());
    expect(sent.get('post_logout_redirect_uri')).toBe(LANDING);
    expect(sent.get('state')).toMatch(/^[\w-]{20,}$/);
  });

  it('the return there is the sign-out: signed out, no notice, state gone from the URL, its own query kept, once', async () => {
    const state = (await signOut(await signIn())).get('state');
    const navigations = h.assign.mock.calls.length;
    const back = await loadAt(`${LANDING}&state=${state}`);
    expect(back.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null, known: false });
    expect(back.started).toEqual({});
    expect(location.href).toBe(LANDING);
    expect(h.assign.mock.calls.length).toBe(navigations);
    const again = await loadAt(`${LANDING}&state=${state}`);
    expect(again.state.error).toEqual({ code: 'unknown_signout' });
    expect(location.href).toBe(LANDING);
  });

  it('a return there with a state this tab did not send is a notice, and no restore', async () => {
    await signIn();
    h.reloaded = true;
    const navigations = h.assign.mock.calls.length;
    const tab = await loadAt(`${LANDING}&state=forged`);
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(tab.state).toEqual({
      status: 'signed-out',
      user: null,
      expiresAt: null,
      error: { code: 'unknown_signout' },
      known: false,
    });
    expect(location.href).toBe(LANDING);
  });

  it('the redirect URI still takes a sign-out return too (a provider that ignores the option)', async () => {
    const state = (await signOut(await signIn())).get('state');
    const back = await loadAt(`${CALLBACK}?state=${state}`);
    expect(back.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null, known: false });
    expect(location.href).toBe(CALLBACK);
  });

  it('is no callback: a code there is left in the URL, and no token request is made', async () => {
    const callback = h.idp.approve(await h.startSignIn({ config: config() }));
    const tab = await loadAt(`${LANDING}&${callback}`);
    expect(tab.state.status).toBe('signed-out');
    expect(location.href).toBe(`${LANDING}&${callback}`);
    expect(h.idp.tokenRequests()).toHaveLength(0);
  });
});

describe('takeSignOutReturn', () => {
  const at = (url: string) => {
    const rewrite = vi.fn();
    return { rewrite, browser: { url: () => url, rewrite } };
  };

  it('takes one state at exactly the URI, keeping its query and fragment', () => {
    const { browser, rewrite } = at('https://app.test/bye?lang=en&state=s1#top');
    expect(takeSignOutReturn(browser, 'https://app.test/bye?lang=en')).toEqual({
      params: new URLSearchParams({ state: 's1' }),
      inFragment: false,
    });
    expect(rewrite).toHaveBeenCalledWith('https://app.test/bye?lang=en#top');
  });

  it.each([
    ['another path', 'https://app.test/other?state=s1'],
    ['another origin', 'https://evil.test/bye?state=s1'],
    ['a query of the app beside state', 'https://app.test/bye?state=s1&page=2'],
    ['two states', 'https://app.test/bye?state=s1&state=s2'],
    ['no state', 'https://app.test/bye'],
    ['a sign-in response', 'https://app.test/bye?code=c&state=s1'],
  ])('leaves %s alone', (_, url) => {
    const { browser, rewrite } = at(url);
    expect(takeSignOutReturn(browser, 'https://app.test/bye')).toBeUndefined();
    expect(rewrite).not.toHaveBeenCalled();
  });

  it('is nothing without the option', () => {
    const { browser, rewrite } = at('https://app.test/?state=s1');
    expect(takeSignOutReturn(browser, undefined)).toBeUndefined();
    expect(rewrite).not.toHaveBeenCalled();
  });
});

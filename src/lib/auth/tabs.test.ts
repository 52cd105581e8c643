// One session per browser: tabs share it in memory over the channel, renew it once under a lock, and
// end it together. What the tests look at is what a person or an attacker can see: requests sent,
// session states, what each tab holds, and what is stored.
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { useAuthHarness, type Tab } from '../../testing/auth-harness';
import type { AppConfig } from '../../config';
import {
  ALICE,
  API_ORIGIN,
  API_URL,
  APP_URL,
  BOB,
  FakeBroadcastChannel,
  REVOCATION_URL,
  allStorage,
  deferred,
  json,
  setPageUrl,
  NAMES,
} from '../../testing/fake-idp';
import { AuthError } from './errors';
import { ASK_MS } from './tabs';

const h = useAuthHarness({ revocationUrl: REVOCATION_URL });

/** A tab opened beside the others (a link, a new tab): memory empty, storage shared. */
async function openTab(): Promise<Tab> {
  setPageUrl(APP_URL + 'orders');
  const tab = h.newTab();
  tab.started = await tab.auth.start();
  return tab;
}

/** Lets the tabs exchange their messages and settle, within promise turns. */
async function settle() {
  for (let turn = 0; turn < 50; turn++) await Promise.resolve();
}

const posted = (type: string) =>
  FakeBroadcastChannel.posted.filter(({ data }) => (data as { type?: string }).type === type).map(({ data }) => data);
const tokenOf = async (tab: Tab) => {
  await tab.auth.fetch(API_URL);
  return h.idp.to(API_URL).at(-1)!.headers.get('authorization');
};

describe('a new tab beside a signed-in one', () => {
  it('adopts its session with no request to the identity service and no navigation', async () => {
    const first = await h.signIn();
    const requests = h.idp.requests.length;
    const navigations = h.assign.mock.calls.length;
    const second = await openTab();
    expect(second.state).toEqual(first.state);
    expect(second.started).toEqual({});
    expect(h.idp.requests.length).toBe(requests);
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(await tokenOf(second)).toBe(await tokenOf(first));
    // Nothing of the session went to storage on the way.
    expect(allStorage()).toBe(`${NAMES.key('hint')}=1`);
  });

  it('restores with prompt=none at once when no tab holds a session: no wait', async () => {
    vi.useFakeTimers();
    await h.signIn();
    await h.closeTabs();
    h.reloaded = true;
    const tab = await openTab();
    expect(tab.state.status).toBe('redirecting');
    expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
  });

  it('restores after a bounded wait when the tab holding the session does not answer', async () => {
    vi.useFakeTimers();
    await h.signIn();
    // Frozen: it keeps the lock but hears nothing.
    for (const channel of FakeBroadcastChannel.open) channel.close();
    h.reloaded = true;
    const navigations = h.assign.mock.calls.length;
    setPageUrl(APP_URL);
    const tab = h.newTab();
    const started = tab.auth.start();
    await vi.advanceTimersByTimeAsync(ASK_MS - 1);
    expect(h.assign.mock.calls.length).toBe(navigations);
    await vi.advanceTimersByTimeAsync(1);
    await started;
    expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
  });

  it('stays signed out after a sign-out, without asking the provider or the other tabs', async () => {
    const first = await h.signIn();
    first.auth.signOut();
    const requests = h.idp.requests.length;
    const asks = posted('ask').length;
    const tab = await openTab();
    expect(tab.state.status).toBe('signed-out');
    expect(h.assign).toHaveBeenCalledTimes(1);
    expect(posted('ask')).toHaveLength(asks);
    expect(h.idp.requests.length).toBe(requests);
  });
});

describe('a sign-in in one tab', () => {
  it('signs in the tabs waiting signed out or expired, with no request of their own', async () => {
    const waiting = await openTab();
    expect(waiting.state.status).toBe('signed-out');
    const requests = () => h.idp.requests.filter((r) => !r.url.startsWith(API_URL)).length;
    const signedIn = await h.signIn();
    const before = requests();
    await settle();
    expect(waiting.state).toEqual(signedIn.state);
    expect(requests()).toBe(before);
    expect(await tokenOf(waiting)).toBe(await tokenOf(signedIn));
  });

  it('replaces the session of a tab signed in as the same person (a step-up elsewhere)', async () => {
    const before = await h.signIn();
    const beforeToken = await tokenOf(before);
    // Another sign-in of the same person on a page that did not ask (no hint): a new grant.
    localStorage.clear();
    const again = await h.signIn();
    await settle();
    expect(await tokenOf(before)).toBe(await tokenOf(again));
    expect(await tokenOf(before)).not.toBe(beforeToken);
  });

  it('leaves a tab signed in as someone else as it is', async () => {
    const alice = await h.signIn();
    h.idp.user = BOB;
    // Bob signs in on a page that does not ask (no hint): two people, two sessions.
    localStorage.clear();
    const bob = await h.signIn();
    await settle();
    expect(alice.state.user).toEqual(ALICE);
    expect(bob.state.user).toEqual(BOB);
  });
});

describe('one renewal for the whole browser', () => {
  it('three tabs over several token lifetimes send one refresh request per lifetime', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const tabs = [await h.signIn(), await openTab(), await openTab()];
    // A provider that takes its time: the tabs' renewals would overlap if each made its own.
    h.idp.token = async (request, standard) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return standard(request);
    };
    const refreshes = () => h.idp.tokenRequests('refresh_token').length;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(refreshes()).toBeGreaterThanOrEqual(5);
    expect(refreshes()).toBeLessThanOrEqual(6);
    const latest = tabs[0].state.expiresAt;
    for (const tab of tabs) expect(tab.state).toMatchObject({ status: 'signed-in', expiresAt: latest });
    // Every tab sends the newest token, and the one refresh token the browser has is the current one.
    const sent = await Promise.all(tabs.map(tokenOf));
    expect(new Set(sent).size).toBe(1);
  });

  it('a token refused in a follower tab is renewed once, by the tab holding the lock', async () => {
    h.idp.refreshTokens = true;
    const [leader, follower] = [await h.signIn(), await openTab()];
    h.idp.validAccessTokens.clear();
    const response = await follower.auth.fetch(API_URL);
    expect(response.status).toBe(200);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    await settle();
    expect(await tokenOf(leader)).toBe(await tokenOf(follower));
  });

  it('the renewing tab closed mid-renewal: another takes the lock and renews', async () => {
    h.idp.refreshTokens = true;
    const leader = await h.signIn();
    const follower = await openTab();
    const hanging = deferred<Response>();
    h.idp.token = () => hanging.promise;
    h.idp.validAccessTokens.clear();
    const call = follower.auth.fetch(API_URL);
    await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
    // The leader's request never reached the provider: the refresh token is still the current one.
    h.idp.token = undefined;
    await h.close(leader);
    expect((await call).status).toBe(200);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(2);
    expect(follower.state.status).toBe('signed-in');
  });

  it('a renewal the provider refuses ends the session in every tab', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const tabs = [await h.signIn(), await openTab()];
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    await vi.advanceTimersByTimeAsync(60_000);
    for (const tab of tabs) expect(tab.state.status).toBe('expired');
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
  });
});

describe('a token per API in a follower tab', () => {
  const NOTES = { resource: 'https://notes.example/', scope: 'notes.read' };
  const config = () => ({ ...h.config, apis: { [API_ORIGIN]: NOTES } }) as AppConfig;

  it('refused by the provider for lack of consent: the follower gets interaction_required with the scope', async () => {
    h.idp.refreshTokens = true;
    await h.signIn({ config: config() });
    setPageUrl(APP_URL);
    const follower = h.newTab(config());
    await follower.auth.start();
    h.idp.token = (request, standard) =>
      request.form.get('resource') ? json({ error: 'invalid_scope' }, 400) : standard(request);
    await expect(follower.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'interaction_required', scope: 'notes.read' });
    h.idp.token = (request, standard) =>
      request.form.get('resource') ? json({ error: 'invalid_request' }, 400) : standard(request);
    await expect(follower.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'token_error' });
  });

  it('is granted by the lock holder, whose rotated refresh token every tab then uses', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const leader = await h.signIn({ config: config() });
    setPageUrl(APP_URL);
    const follower = h.newTab(config());
    await follower.auth.start();
    expect(follower.state.status).toBe('signed-in');
    expect((await follower.auth.fetch(API_URL)).status).toBe(200);
    const grants = h.idp.tokenRequests('refresh_token');
    expect(grants.map((r) => r.form.get('resource'))).toEqual([NOTES.resource]);
    // The provider rotated the refresh token: the next renewals (made by the lock holder) use the new one.
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    const renewals = h.idp.tokenRequests('refresh_token').slice(1);
    expect(renewals.length).toBeGreaterThanOrEqual(2);
    for (const tab of [leader, follower]) expect(tab.state.status).toBe('signed-in');
    expect((await leader.auth.fetch(API_URL)).status).toBe(200);
  });
});

describe('when the lock holder is silent, gone or refused', () => {
  /** The session id the tabs announced, for messages a test sends on their channel. */
  const sessionId = () =>
    (FakeBroadcastChannel.posted
      .map(({ data }) => data as { type: string; session?: { id: string } })
      .find((m) => m.type === 'offer')?.session?.id ?? '') as string;

  it('a follower waits a bounded time for a silent holder, then retries later instead of failing', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 600;
    const leader = await h.signIn();
    const follower = await openTab();
    // The holder hears nothing more (frozen), and keeps its lock.
    for (const channel of FakeBroadcastChannel.open) if (FakeBroadcastChannel.open.size > 1) channel.close();
    h.idp.validAccessTokens.clear();
    const call = follower.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(h.config.timeoutMs);
    expect(await call).toMatchObject({ code: 'session_expired' });
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(leader.state.status).toBe('signed-in');
  });

  it('a holder whose renewal the provider refuses ends the session of a follower waiting on it', async () => {
    h.idp.refreshTokens = true;
    await h.signIn();
    const follower = await openTab();
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    h.idp.validAccessTokens.clear();
    await expect(follower.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    await settle();
    expect(follower.state.status).toBe('expired');
  });

  it('a follower closed while it waits lets go: its request is aborted, nothing is left pending', async () => {
    h.idp.refreshTokens = true;
    await h.signIn();
    const follower = await openTab();
    const hanging = deferred<Response>();
    h.idp.token = () => hanging.promise;
    h.idp.validAccessTokens.clear();
    const call = follower.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
    await h.close(follower);
    expect(await call).toBeInstanceOf(AuthError);
  });

  it('a renewal asked for after the holder renewed gets the newer tokens again, with no request', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    await h.signIn();
    await vi.advanceTimersByTimeAsync(60_000);
    const refreshes = h.idp.tokenRequests('refresh_token').length;
    const renewed = FakeBroadcastChannel.posted.length;
    new FakeBroadcastChannel(NAMES.channel).postMessage({ app: NAMES.app, type: 'renew', id: sessionId(), expiresAt: 0 });
    await settle();
    const answers = FakeBroadcastChannel.posted
      .slice(renewed)
      .filter(({ data }) => (data as { type: string }).type === 'renewed');
    expect(answers).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(refreshes);
  });
});

describe('browsers without Web Locks or BroadcastChannel', () => {
  it('without Web Locks, each tab renews for itself', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const port = h.port;
    onTestFinished(() => void (h.port = port));
    h.port = () => ({ ...port(), locks: undefined });
    const tab = await h.signIn();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.idp.tokenRequests('refresh_token').length).toBeGreaterThanOrEqual(1);
    expect(tab.state.status).toBe('signed-in');
  });

  it('without BroadcastChannel, a new tab restores as before: one prompt=none round trip', async () => {
    await h.signIn();
    const port = h.port;
    onTestFinished(() => void (h.port = port));
    h.port = () => ({ ...port(), channel: () => undefined });
    const tab = await openTab();
    expect(tab.state.status).toBe('redirecting');
    expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
  });
});

describe('sign-out in one tab', () => {
  it('signs every tab of the session out and revokes its tokens once', async () => {
    h.idp.refreshTokens = true;
    const tabs = [await h.signIn(), await openTab(), await openTab()];
    const refreshToken = h.idp.currentRefreshToken;
    tabs[1].auth.signOut();
    await settle();
    for (const tab of tabs) expect(tab.state.status).toBe('signed-out');
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(2));
    await settle();
    expect(h.idp.to(REVOCATION_URL)).toHaveLength(2);
    expect(h.idp.to(REVOCATION_URL).map((r) => r.form.get('token'))).toContain(refreshToken);
    expect(h.idp.currentRefreshToken).toBeUndefined();
  });
});

describe('messages on the channel', () => {
  const session = () => ({
    id: 'a'.repeat(43),
    tokens: { accessToken: 'at', refreshToken: 'rt', expiresAt: Date.now() + 60_000, subject: 'alice-sub' },
    scope: 'openid',
    user: { sub: 'alice-sub' },
  });

  it('hostile messages change nothing and draw no token out', async () => {
    const tab = await h.signIn();
    const before = structuredClone(tab.state);
    const waiting = await (async () => {
      localStorage.clear();
      return openTab();
    })();
    const hostile = new FakeBroadcastChannel(NAMES.channel);
    const sent = FakeBroadcastChannel.posted.length;
    for (const data of [
      { type: 'offer', session: { ...session(), tokens: undefined } },
      { type: 'offer', session: { ...session(), user: { sub: 'x'.repeat(300) } } },
      { type: 'renewed', id: 'b'.repeat(43), sub: 'alice-sub', tokens: session().tokens },
      { type: 'ended', id: 'b'.repeat(43) },
      { type: 'renew', id: 'b'.repeat(43), expiresAt: 0 },
      { type: 'ask', from: '<script>' },
      { type: 'offer', session: { ...session(), id: 'x' } },
      'x'.repeat(1_000_000),
    ]) {
      hostile.postMessage(typeof data === 'string' ? data : { app: NAMES.app, ...data });
    }
    await settle();
    expect(tab.state).toEqual(before);
    expect(waiting.state.status).toBe('signed-out');
    // No tab answered with anything: the hostile messages drew no token out.
    expect(FakeBroadcastChannel.posted.length).toBe(sent + 8);
  });
});

describe('with DPoP', () => {
  const d = useAuthHarness({ dpop: true });

  it('every tab signs with the same non-extractable key, so the bound token works everywhere', async () => {
    d.idp.dpop = true;
    const first = await d.signIn();
    setPageUrl(APP_URL);
    const second = d.newTab();
    await second.auth.start();
    expect(second.state.status).toBe('signed-in');
    for (const tab of [first, second]) expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    const [a, b] = d.idp.to(API_URL).map((r) => decodeProtectedHeader(r.headers.get('dpop')!).jwk);
    expect(a).toEqual(b);
    const shared = FakeBroadcastChannel.posted
      .map(({ data }) => data as { type: string; session?: { keys?: CryptoKeyPair } })
      .find((m) => m.type === 'offer')!.session!.keys!;
    expect(shared.privateKey.extractable).toBe(false);
  });
});

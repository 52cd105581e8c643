// One session per browser: tabs share it in memory over the channel, renew it once under a lock, and
// end it together. What the tests look at is what a person or an attacker can see: requests sent,
// session states, what each tab holds, and what is stored.
import { decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { noSession, useAuthHarness, type Tab } from '../../../testing/auth-harness';
import type { AppConfig } from '../../../config';
import {
  ACCOUNT_URL,
  ALICE,
  API_ORIGIN,
  API_URL,
  APP_URL,
  BOB,
  CLIENT_ID,
  FakeBroadcastChannel,
  OTHER_API_ORIGIN,
  OTHER_API_URL,
  REVOCATION_URL,
  allStorage,
  challenge,
  deferred,
  json,
  setPageUrl,
  NAMES,
} from '../../../testing/fake-idp';
import { AuthError } from '../protocol/errors';
import { appNames } from '../browser/storage';
import { ASK_MS, RENEW_ASKED_MS } from './tabs';

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

  it("a step-up for an API reaches the session's other tabs: they get the wider token for it, without asking", async () => {
    h.idp.refreshTokens = true;
    const NOTES = { resource: 'https://notes.example/', scope: 'notes.read', stepUpScopes: 'notes.write' };
    const config = { ...h.config, apis: { [API_ORIGIN]: NOTES } } as AppConfig;
    await h.signIn({ config });
    setPageUrl(APP_URL);
    const other = h.newTab(config);
    await other.auth.start();
    expect(other.state.status).toBe('signed-in');
    // Another tab steps up for the API and comes back signed in with the wider grant.
    setPageUrl(APP_URL);
    const asking = h.newTab(config);
    await asking.auth.start();
    await asking.auth.signIn({ scope: 'notes.write', resource: NOTES.resource });
    await h.close(asking);
    const navigations = h.assign.mock.calls.length;
    const back = await h.completeCallback(h.idp.approve(h.lastNavigation()), config);
    await settle();
    const offer = posted('offer').at(-1) as { session: { added?: Record<string, string> } };
    expect(offer.session.added).toEqual({ [NOTES.resource]: 'notes.write' });
    // The tab that did not ask uses the wider grant: its API token is asked with notes.write.
    expect((await other.auth.fetch(API_URL)).status).toBe(200);
    const grant = h.idp.tokenRequests('refresh_token').at(-1)!.form;
    expect([grant.get('resource'), grant.get('scope')]).toEqual([NOTES.resource, 'notes.read notes.write']);
    expect(h.assign.mock.calls).toHaveLength(navigations);
    expect(back.state.status).toBe('signed-in');
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

describe('offline: the tab holding the lock retries for every tab', () => {
  const unreachable = () => {
    throw new TypeError('Failed to fetch');
  };

  /** Two tabs with 10-second tokens, whose renewals cannot reach the provider; `ms` later, `more` tabs. */
  /** `onToken` is told each token request's time since the fake clock started, before the sign-in. */
  async function offlineTabs(ms: number, more = 0, onToken: (sinceStart: number) => void = () => {}) {
    vi.useFakeTimers();
    const start = Date.now();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 10;
    const tabs = [await h.signIn(), await openTab()];
    for (let i = 0; i < more; i++) tabs.push(await openTab());
    h.idp.token = () => (onToken(Date.now() - start), unreachable());
    await vi.advanceTimersByTimeAsync(ms);
    return tabs;
  }

  /** The browser is online again: every tab hears it. */
  async function backOnline() {
    window.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    await settle();
  }

  it('past expiry every tab stays signed in, offline; only the leader’s backoff reaches the token endpoint; calls fail unreachable', async () => {
    const sentAt: number[] = [];
    const tabs = await offlineTabs(180_000, 1, (sinceStart) => sentAt.push(sinceStart));
    // The leader renews 2 s before expiry, then after 2, 4, 8, 16, 32, 60 s: as one tab alone would.
    expect(sentAt).toEqual([8, 10, 14, 22, 38, 70, 130].map((s) => s * 1000));
    for (const tab of tabs) {
      expect(tab.state).toMatchObject({ status: 'signed-in', offline: true, user: { sub: 'alice-sub' } });
      await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable' });
    }
    expect(sentAt).toHaveLength(7);
    expect(h.idp.to(API_URL)).toHaveLength(0);
  });

  it('back online, one renewal reaches every tab: online again, and their calls work', async () => {
    const tabs = await offlineTabs(30_000);
    for (const tab of tabs) expect(tab.state.offline).toBe(true);
    const before = h.idp.tokenRequests('refresh_token').length;
    h.idp.token = undefined;
    await backOnline();
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(before + 1);
    for (const tab of tabs) {
      expect(tab.state).toMatchObject({ status: 'signed-in', offline: false, expiresAt: Date.now() + 10_000 });
      expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    }
  });

  it('back online, a refused refresh token ends the session in every tab as at any refusal', async () => {
    const tabs = await offlineTabs(30_000);
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    await backOnline();
    for (const tab of tabs)
      expect(tab.state).toMatchObject({ status: 'expired', offline: false, error: { code: 'session_expired' } });
  });

  it('a follower’s renewal under way learns at once that the leader could not reach the provider', async () => {
    h.idp.refreshTokens = true;
    const [leader, follower] = [await h.signIn(), await openTab()];
    h.idp.token = unreachable;
    h.idp.validAccessTokens.clear();
    // Refused by the API, renewed by the leader: unreachable, well before the follower's wait (timeoutMs) ends.
    await expect(follower.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable' });
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    await settle();
    for (const tab of [leader, follower]) expect(tab.state).toMatchObject({ status: 'signed-in', offline: true });
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
  it('a renewed no newer than its tokens leaves a follower waiting for the leader’s renewal', async () => {
    h.idp.refreshTokens = true;
    await h.signIn();
    const follower = await openTab();
    const { id, tokens } = (posted('offer')[0] as { session: { id: string; tokens: { expiresAt: number } } }).session;
    const release = deferred<void>();
    h.idp.token = async (request, standard) => {
      await release.promise;
      return standard(request);
    };
    h.idp.validAccessTokens.clear();
    const call = follower.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
    // A tab that missed a renewal asks for an older token: the leader answers every tab with the current ones.
    new FakeBroadcastChannel(NAMES.channel).postMessage({ app: NAMES.app, type: 'renew', id, expiresAt: tokens.expiresAt - 1 });
    await settle();
    release.resolve();
    expect(await call).toMatchObject({ status: 200 });
    expect(follower.state.status).toBe('signed-in');
  });

  it('a follower waits a bounded time for a silent holder: its call fails unreachable, and it stays signed in, offline', async () => {
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
    expect(await call).toMatchObject({ code: 'unreachable' });
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(follower.state).toMatchObject({ status: 'signed-in', offline: true });
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
    expect(await call).toMatchObject({ code: 'session_expired' });
    expect(await call).toBeInstanceOf(AuthError);
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

describe('what a message from another page of the origin can do', () => {
  // Any page of the origin can post on the app's channel, and read it: the session id and the person
  // are in every offer. A message acts only for the tabs' app, on their session and (where tokens
  // travel) for their person, and no more than the tabs' own messages do; anything else changes nothing.
  const NOTES = { resource: 'https://notes.example/', scope: 'notes.read' };
  /** What the instance itself asks for NOTES: the only grant it makes for another tab. */
  const NOTES_REQUEST = { resource: NOTES.resource, scope: NOTES.scope };
  const withNotes = () => ({ ...h.config, apis: { [OTHER_API_ORIGIN]: NOTES } }) as AppConfig;
  const OTHER_APP = appNames(ACCOUNT_URL, 'other-spa').app;
  const OTHER_ID = 'o'.repeat(43);
  /** A request id no tab made (an ask, a grant). */
  const STRANGER = 's'.repeat(43);
  const PROBE = 'p'.repeat(43);
  const DAY_MS = 24 * 60 * 60 * 1000;

  interface Shared {
    id: string;
    sub: string;
    tokens: { accessToken: string; refreshToken?: string; expiresAt: number; subject?: string };
  }
  type Message = Record<string, unknown>;

  /** The session the tabs announced last, as a page listening on the channel reads it. */
  const announced = (): Shared => {
    const { session } = FakeBroadcastChannel.posted
      .map(({ data }) => data as { type: string; session?: Shared & { user: { sub: string } } })
      .findLast((m) => m.type === 'offer')!;
    return { id: session!.id, sub: session!.user.sub, tokens: session!.tokens };
  };

  /** Alice signed in in a leader tab, and a follower that adopted the session; the instance has an API of its own. */
  async function signedInTabs() {
    h.idp.refreshTokens = true;
    const leader = await h.signIn({ config: withNotes() });
    setPageUrl(APP_URL + 'orders');
    const follower = h.newTab(withNotes());
    follower.started = await follower.auth.start();
    expect(follower.state.status).toBe('signed-in');
    return { leader, follower, tabs: [leader, follower], session: announced() };
  }

  /** A tab that did not ask at start (no hint): signed out, listening to the others once its relay loaded. */
  async function signedOutTab() {
    localStorage.clear();
    setPageUrl(APP_URL);
    const channels = FakeBroadcastChannel.open.size;
    const tab = h.newTab(withNotes());
    await tab.auth.start();
    await settle();
    expect(FakeBroadcastChannel.open.size).toBe(channels + 1);
    expect(tab.state.status).toBe('signed-out');
    return tab;
  }

  /** Indexes in FakeBroadcastChannel.posted of what the hostile page posted. */
  let hostileAt = new Set<number>();
  beforeEach(() => void (hostileAt = new Set()));

  /** Posts `messages` (with the app's key unless they carry one) from a page that is no tab of the app. */
  async function postHostile(...messages: Message[]) {
    const channel = new FakeBroadcastChannel(NAMES.channel);
    for (const message of messages) {
      hostileAt.add(FakeBroadcastChannel.posted.length);
      channel.postMessage({ app: NAMES.app, ...message });
    }
    await settle();
    channel.close();
  }

  /** What the tabs posted since `from` (an index into the posted messages), of `type` if given. */
  const answers = (from: number, type?: string) =>
    FakeBroadcastChannel.posted
      .map(({ data }, at) => ({ data: data as Message, at }))
      .filter(({ data, at }) => at >= from && !hostileAt.has(at) && (!type || data.type === type))
      .map(({ data }) => data);

  /** Requests to the identity service (token, userinfo, revocation), not to the APIs. */
  const toProvider = () => h.idp.requests.filter((r) => !r.url.startsWith(API_ORIGIN) && !r.url.startsWith(OTHER_API_ORIGIN));

  /** The Authorization headers one auth.fetch of `url` in `tab` sent: none when it sent nothing. */
  async function sent(tab: Tab, url = API_URL): Promise<(string | null)[]> {
    const before = h.idp.to(url).length;
    await tab.auth.fetch(url).catch(() => undefined);
    return h.idp
      .to(url)
      .slice(before)
      .map((r) => r.headers.get('authorization'));
  }

  /** The session the leader holds (refresh token included), as it answers an ask. */
  async function leaderHolds() {
    const from = FakeBroadcastChannel.posted.length;
    const probe = new FakeBroadcastChannel(NAMES.channel);
    probe.postMessage({ app: NAMES.app, type: 'ask', from: PROBE });
    await settle();
    probe.close();
    return answers(from + 1, 'offer').filter((offer) => offer.to === PROBE);
  }

  /**
   * What a person or an attacker sees of the tabs: their states, the token each sends, the requests to
   * the provider, and the session the leader hands a new tab (its refresh token too).
   */
  async function observe(tabs: Tab[]) {
    const states = tabs.map((tab) => structuredClone(tab.state));
    // One tab after the other: each sends its own request.
    const tokens = [];
    for (const tab of tabs) tokens.push(await sent(tab));
    return { states, sent: tokens, provider: toProvider().length, leaderHolds: await leaderHolds() };
  }

  /** Posts `messages` and checks they changed nothing: no state, token, request or answer. */
  async function expectNoEffect(tabs: Tab[], ...messages: Message[]) {
    const before = await observe(tabs);
    const from = FakeBroadcastChannel.posted.length;
    await postHostile(...messages);
    expect(answers(from)).toEqual([]);
    expect(await observe(tabs)).toEqual(before);
  }

  /** The session's tokens as a tab would post them, with this access token and expiring `lifetimeMs` from now. */
  const tokensOf = (session: Shared, lifetimeMs: number, accessToken = 'at-from-the-channel') => ({
    ...session.tokens,
    accessToken,
    expiresAt: Date.now() + lifetimeMs,
  });
  /** An offer of a session of `sub`, as a tab that signed in sends it to all. */
  const offerOf = (session: Shared, sub: string, lifetimeMs = 120_000) => ({
    type: 'offer',
    session: {
      id: OTHER_ID,
      tokens: { ...tokensOf(session, lifetimeMs, 'at-offered'), refreshToken: 'rt-offered', subject: sub },
      scope: `${h.config.scope} ${NOTES.scope} notes.write`,
      user: { ...(sub === ALICE.sub ? ALICE : BOB), name: 'Offered' },
    },
  });

  describe('of another app, about another session, or for another person: nothing', () => {
    /** Each type as the tabs act on it: their app, session and person, with the effects tested below. */
    const MESSAGES: Record<string, (session: Shared) => Message> = {
      ask: () => ({ type: 'ask', from: STRANGER }),
      offer: (session) => offerOf(session, session.sub),
      renew: (session) => ({ type: 'renew', id: session.id, expiresAt: session.tokens.expiresAt }),
      renewed: (session) => ({ type: 'renewed', id: session.id, sub: session.sub, tokens: tokensOf(session, 600_000) }),
      grant: (session) => ({ type: 'grant', id: session.id, from: STRANGER, params: NOTES_REQUEST }),
      rotated: (session) => ({ type: 'rotated', id: session.id, sub: session.sub, refreshToken: 'rt-from-the-channel' }),
      ended: (session) => ({ type: 'ended', id: session.id }),
      'signed-out': (session) => ({ type: 'signed-out', id: session.id }),
    };
    // `granted` acts only for a waiting request: its own tests below wait for one.

    it.each(Object.keys(MESSAGES))('%s with another app’s key', async (type) => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, { ...MESSAGES[type](session), app: OTHER_APP });
    });

    it.each(['renew', 'renewed', 'grant', 'rotated', 'ended', 'signed-out'])('%s with another session id', async (type) => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, { ...MESSAGES[type](session), id: OTHER_ID });
    });

    it.each(['renewed', 'rotated'])('%s for another person', async (type) => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, { ...MESSAGES[type](session), sub: BOB.sub });
    });
  });

  describe('ask', () => {
    it('is answered by the leader alone, with the session: a page of the origin can read it (README)', async () => {
      const { leader, tabs, session } = await signedInTabs();
      const before = await observe(tabs);
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'ask', from: STRANGER });
      expect(answers(from)).toEqual([
        expect.objectContaining({ type: 'offer', to: STRANGER, session: expect.objectContaining({ id: session.id }) }),
      ]);
      const [answer] = answers(from) as { session: Shared }[];
      expect(await sent(leader)).toEqual([`Bearer ${answer.session.tokens.accessToken}`]);
      expect(await observe(tabs)).toEqual(before);
    });
  });

  describe('offer', () => {
    it('unsolicited, to a signed-out tab: the tab asks, and adopts the leader’s answer, never the offer', async () => {
      const { leader, session } = await signedInTabs();
      const waiting = await signedOutTab();
      const provider = toProvider().length;
      const from = FakeBroadcastChannel.posted.length;
      // Bob's: the signed-in tabs, Alice's, ignore it (one of Alice's would be adopted by them, below).
      h.idp.validAccessTokens.add('at-offered');
      await postHostile(offerOf(session, BOB.sub));
      const [ask] = answers(from, 'ask');
      expect(answers(from).map((m) => [m.type, m.to])).toEqual([
        ['ask', undefined],
        ['offer', ask.from],
      ]);
      expect(waiting.state).toEqual(leader.state);
      expect(waiting.state.user).toEqual(ALICE);
      expect(await sent(waiting)).toEqual(await sent(leader));
      expect(await sent(waiting)).not.toContain('Bearer at-offered');
      expect(toProvider()).toHaveLength(provider);
    });

    it('unsolicited, to a signed-out tab with no session anywhere: the tab asks, nobody answers, it stays signed out', async () => {
      const { session } = await signedInTabs();
      await h.closeTabs();
      const waiting = await signedOutTab();
      const provider = toProvider().length;
      const from = FakeBroadcastChannel.posted.length;
      await postHostile(offerOf(session, session.sub));
      expect(answers(from).map((m) => m.type)).toEqual(['ask']);
      expect(waiting.state.status).toBe('signed-out');
      expect(await sent(waiting)).toEqual([]);
      expect(toProvider()).toHaveLength(provider);
    });

    /** A tab starting while the leader is frozen (it keeps its lock, hears nothing): it asks, and waits ASK_MS. */
    async function askingTab() {
      vi.useFakeTimers();
      const { session } = await signedInTabs();
      for (const channel of FakeBroadcastChannel.open) channel.close();
      h.reloaded = true;
      setPageUrl(APP_URL);
      const from = FakeBroadcastChannel.posted.length;
      const tab = h.newTab(withNotes());
      const started = tab.auth.start();
      await settle();
      const [ask] = answers(from, 'ask');
      expect(tab.state.status).toBe('loading');
      // Tokens the API takes, so that a tab using them would show it.
      h.idp.validAccessTokens.add('at-offered');
      return { tab, started, session, ask };
    }

    it('addressed to an ask the tab did not make: ignored; the tab restores through the provider after ASK_MS', async () => {
      const { tab, started, session } = await askingTab();
      await postHostile({ ...offerOf(session, session.sub), to: STRANGER });
      expect(tab.state.status).toBe('loading');
      await vi.advanceTimersByTimeAsync(ASK_MS);
      await started;
      expect(tab.state.status).toBe('redirecting');
      expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
      expect(await sent(tab)).toEqual([]);
    });

    it('addressed to the tab’s own ask: adopted, whoever answers (the ask is on the channel, README)', async () => {
      const { tab, started, session, ask } = await askingTab();
      await postHostile({ ...offerOf(session, session.sub), to: ask.from });
      expect(await started).toEqual({});
      expect(tab.state).toMatchObject({ status: 'signed-in', user: { sub: ALICE.sub, name: 'Offered' } });
      expect(await sent(tab)).toEqual(['Bearer at-offered']);
    });

    it('of another person, to signed-in tabs: ignored', async () => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, offerOf(session, BOB.sub));
    });

    it('of the same person, to signed-in tabs: adopted by every tab, as a step-up’s wider grant is', async () => {
      const { tabs, session } = await signedInTabs();
      const offer = offerOf(session, session.sub);
      h.idp.validAccessTokens.add(offer.session.tokens.accessToken);
      const provider = toProvider().length;
      const from = FakeBroadcastChannel.posted.length;
      await postHostile(offer);
      expect(answers(from)).toEqual([]);
      for (const tab of tabs) {
        expect(tab.state).toMatchObject({
          status: 'signed-in',
          user: offer.session.user,
          expiresAt: offer.session.tokens.expiresAt,
        });
        expect(await sent(tab)).toEqual(['Bearer at-offered']);
      }
      expect(toProvider()).toHaveLength(provider);
      // The tabs joined the offered session: messages about the one they left do nothing.
      await expectNoEffect(tabs, { type: 'ended', id: session.id });
    });

    it('expiring beyond a day: refused, by signed-in and signed-out tabs alike', async () => {
      const { tabs, session } = await signedInTabs();
      const waiting = await signedOutTab();
      await expectNoEffect([...tabs, waiting], offerOf(session, session.sub, DAY_MS + 60_000));
    });
  });

  describe('renew', () => {
    it('20 for the current token cost one refresh grant; the next only RENEW_ASKED_MS after the first', async () => {
      vi.useFakeTimers();
      const { leader, follower, session } = await signedInTabs();
      await vi.advanceTimersByTimeAsync(1_000);
      const from = FakeBroadcastChannel.posted.length;
      // One every 200 ms, each for the token the tabs hold then: 4 s in all.
      for (let i = 0; i < 20; i++) {
        await postHostile({ type: 'renew', id: session.id, expiresAt: leader.state.expiresAt });
        await vi.advanceTimersByTimeAsync(200);
      }
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
      expect(answers(from).map((m) => m.type)).toEqual(['renewed']);
      expect(follower.state).toEqual(leader.state);
      expect(leader.state.expiresAt).toBeGreaterThan(session.tokens.expiresAt);
      const renewed = await sent(leader);
      expect(renewed).toEqual([`Bearer ${String(h.idp.issued.at(-1)!.access_token)}`]);
      expect(await sent(follower)).toEqual(renewed);
      await vi.advanceTimersByTimeAsync(RENEW_ASKED_MS - 4_000 - 1);
      await postHostile({ type: 'renew', id: session.id, expiresAt: leader.state.expiresAt });
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      await postHostile({ type: 'renew', id: session.id, expiresAt: leader.state.expiresAt });
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(2);
    });

    it('for an older token: the leader alone answers with the current tokens, with no grant', async () => {
      const { leader, tabs, session } = await signedInTabs();
      const before = await observe(tabs);
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'renew', id: session.id, expiresAt: session.tokens.expiresAt - 1 });
      expect(answers(from)).toEqual([
        { app: NAMES.app, type: 'renewed', id: session.id, sub: ALICE.sub, tokens: session.tokens },
      ]);
      expect(await sent(leader)).toEqual([`Bearer ${session.tokens.accessToken}`]);
      expect(await observe(tabs)).toEqual(before);
    });
  });

  describe('renewed', () => {
    it('with an older expiry, or the tokens the tab holds: ignored', async () => {
      const { tabs, session } = await signedInTabs();
      const { id, sub } = session;
      await expectNoEffect(
        tabs,
        { type: 'renewed', id, sub, tokens: { ...session.tokens, expiresAt: session.tokens.expiresAt + 1000 } },
        {
          type: 'renewed',
          id,
          sub,
          tokens: { ...session.tokens, accessToken: 'at-older', expiresAt: session.tokens.expiresAt - 1 },
        },
      );
    });

    it('with tokens of another subject: ignored', async () => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, {
        type: 'renewed',
        id: session.id,
        sub: session.sub,
        tokens: { ...tokensOf(session, 600_000), subject: BOB.sub },
      });
    });

    it('expiring beyond a day: refused', async () => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, {
        type: 'renewed',
        id: session.id,
        sub: session.sub,
        tokens: tokensOf(session, DAY_MS + 60_000),
      });
    });

    it('newer, for the session and its person: taken by every tab (intended: the tabs cannot tell it from the leader’s)', async () => {
      const { tabs, session } = await signedInTabs();
      const tokens = tokensOf(session, 600_000);
      // A token the API takes (one the page got for the same person): the tabs send it.
      h.idp.validAccessTokens.add(tokens.accessToken);
      const provider = toProvider().length;
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'renewed', id: session.id, sub: session.sub, tokens });
      expect(answers(from)).toEqual([]);
      for (const tab of tabs) {
        expect(tab.state).toEqual({
          status: 'signed-in',
          user: ALICE,
          expiresAt: tokens.expiresAt,
          error: null,
          known: true,
          offline: false,
        });
        expect(await sent(tab)).toEqual([`Bearer ${tokens.accessToken}`]);
      }
      expect(toProvider()).toHaveLength(provider);
    });
  });

  describe('grant', () => {
    it('for a resource not configured, or another scope than the instance asks for its API: no grant, no answer', async () => {
      const { tabs, session } = await signedInTabs();
      const grant = (params: Message) => ({ type: 'grant', id: session.id, from: STRANGER, params });
      await expectNoEffect(
        tabs,
        grant({ resource: 'https://evil.example/' }),
        grant({ resource: 'https://evil.example/', scope: NOTES.scope }),
        grant({ resource: NOTES.resource }),
        grant({ resource: NOTES.resource, scope: `${NOTES.scope} notes.write` }),
        grant({ resource: NOTES.resource, scope: h.config.scope }),
      );
    });

    it('what the instance asks for its API: granted once, by the leader, and answered', async () => {
      const { follower, tabs, session } = await signedInTabs();
      const before = await observe(tabs);
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'grant', id: session.id, from: STRANGER, params: NOTES_REQUEST });
      const grants = h.idp.tokenRequests('refresh_token');
      expect(grants.map(({ form }) => [form.get('resource'), form.get('scope')])).toEqual([[NOTES.resource, NOTES.scope]]);
      const issued = h.idp.issued.at(-1)!;
      expect(answers(from)).toEqual([
        { app: NAMES.app, type: 'rotated', id: session.id, sub: ALICE.sub, refreshToken: issued.refresh_token },
        {
          app: NAMES.app,
          type: 'granted',
          id: session.id,
          to: STRANGER,
          sub: ALICE.sub,
          tokens: expect.objectContaining({ accessToken: issued.access_token }),
        },
      ]);
      // The session's token is as it was; the leader's next grant (the follower's, for its API) spends the rotated refresh token.
      const after = await observe(tabs);
      expect(after.states).toEqual(before.states);
      expect(after.sent).toEqual(before.sent);
      expect(after.leaderHolds).toMatchObject([{ session: { tokens: { refreshToken: issued.refresh_token } } }]);
      // Asked again within RENEW_ASKED_MS (here by the follower, for its API): the same token, no second grant.
      expect(await sent(follower, OTHER_API_URL)).toEqual([`Bearer ${issued.access_token}`]);
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    });

    it('twenty times at once with the session id: one grant, twenty answers with its token', async () => {
      const { tabs, session } = await signedInTabs();
      const before = await observe(tabs);
      const from = FakeBroadcastChannel.posted.length;
      for (let i = 0; i < 20; i++) await postHostile({ type: 'grant', id: session.id, from: STRANGER, params: NOTES_REQUEST });
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
      const granted = answers(from).filter((m) => (m as { type: string }).type === 'granted');
      expect(granted).toHaveLength(20);
      expect(new Set(granted.map((m) => (m as { tokens: { accessToken: string } }).tokens.accessToken)).size).toBe(1);
      expect((await observe(tabs)).states).toEqual(before.states);
    });
  });

  describe('granted', () => {
    it('addressed to no waiting request: nothing', async () => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(tabs, {
        type: 'granted',
        id: session.id,
        to: STRANGER,
        sub: session.sub,
        tokens: tokensOf(session, 60_000),
      });
    });

    /** The follower asks the leader for its API's token, which the provider holds back until `release`. */
    async function waitingFollower() {
      const tabs = await signedInTabs();
      const release = deferred<void>();
      h.idp.token = async (request, standard) => {
        await release.promise;
        return standard(request);
      };
      const from = FakeBroadcastChannel.posted.length;
      const call = sent(tabs.follower, OTHER_API_URL);
      await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
      const [grant] = answers(from, 'grant');
      // A token the API takes: the follower would send it if it took it.
      h.idp.validAccessTokens.add('at-granted-by-the-page');
      const granted = { type: 'granted', id: tabs.session.id, to: grant.from, sub: tabs.session.sub };
      return {
        ...tabs,
        granted: { ...granted, tokens: tokensOf(tabs.session, 60_000, 'at-granted-by-the-page') },
        call,
        release,
      };
    }

    it.each([
      ['another app', { app: OTHER_APP }],
      ['another session', { id: OTHER_ID }],
      ['another person', { sub: BOB.sub }],
      ['another request', { to: STRANGER }],
      ['tokens beyond a day', { tokens: { accessToken: 'at-granted-by-the-page', expiresAt: Date.now() + 2 * DAY_MS } }],
    ])('of %s, to a follower waiting for the leader’s: ignored, the follower sends the leader’s token', async (_, change) => {
      const { granted, call, release } = await waitingFollower();
      await postHostile({ ...granted, ...change });
      release.resolve();
      const headers = await call;
      expect(headers).toEqual([`Bearer ${String(h.idp.issued.at(-1)!.access_token)}`]);
      expect(h.idp.resourceOf.get(String(h.idp.issued.at(-1)!.access_token))).toBe(NOTES.resource);
    });

    it('to a follower’s waiting request, for its session and person: taken first (the page read the request on the channel)', async () => {
      const { granted, call, release } = await waitingFollower();
      await postHostile(granted);
      expect(await call).toEqual(['Bearer at-granted-by-the-page']);
      release.resolve();
    });
  });

  describe('rotated', () => {
    it('for another person: nothing; the next renewal sends the session’s refresh token', async () => {
      vi.useFakeTimers();
      h.idp.expiresIn = 60;
      const { tabs, session } = await signedInTabs();
      const refreshToken = h.idp.currentRefreshToken;
      await expectNoEffect(tabs, { type: 'rotated', id: session.id, sub: BOB.sub, refreshToken: 'rt-from-the-channel' });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(h.idp.tokenRequests('refresh_token').map(({ form }) => form.get('refresh_token'))).toEqual([refreshToken]);
      for (const tab of tabs) expect(tab.state.status).toBe('signed-in');
    });

    it('for the session and its person: the tabs’ next renewal sends its refresh token, is refused, and the session ends', async () => {
      vi.useFakeTimers();
      h.idp.expiresIn = 60;
      const { tabs, session } = await signedInTabs();
      await postHostile({ type: 'rotated', id: session.id, sub: session.sub, refreshToken: 'rt-from-the-channel' });
      for (const tab of tabs) expect(tab.state.status).toBe('signed-in');
      await vi.advanceTimersByTimeAsync(60_000);
      expect(h.idp.tokenRequests('refresh_token').map(({ form }) => form.get('refresh_token'))).toEqual(['rt-from-the-channel']);
      for (const tab of tabs) expect(tab.state.status).toBe('expired');
    });
  });

  describe('ended', () => {
    it.each(['ended', 'offline'])('%s without an id: nothing', async (type) => {
      const { tabs } = await signedInTabs();
      await expectNoEffect(tabs, { type });
    });

    it('with the session id: the session ends in every tab (expired), with nothing sent to anyone', async () => {
      const { tabs, session } = await signedInTabs();
      const provider = toProvider().length;
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'ended', id: session.id });
      expect(answers(from)).toEqual([]);
      for (const tab of tabs) {
        expect(tab.state).toMatchObject({ status: 'expired', user: null, error: { code: 'session_expired' } });
        expect(await sent(tab)).toEqual([]);
      }
      expect(toProvider()).toHaveLength(provider);
      // No tab holds the session any more: none answers a new tab.
      expect(await leaderHolds()).toEqual([]);
    });
  });

  describe('offline', () => {
    it('with the session id: every tab shows the session offline, keeps it, and sends nothing; the next renewal ends it', async () => {
      const { tabs, session } = await signedInTabs();
      const provider = toProvider().length;
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'offline', id: session.id });
      expect(answers(from)).toEqual([]);
      for (const tab of tabs) expect(tab.state).toMatchObject({ status: 'signed-in', offline: true, user: { sub: session.sub } });
      expect(toProvider()).toHaveLength(provider);
      // The provider was reachable all along: the next renewal (the page shown again) says so in every tab.
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
      await vi.waitFor(() => expect(tabs.every((tab) => !tab.state.offline)).toBe(true));
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    });
  });

  describe('signed-out', () => {
    it('without an id, with another id, of another app: nothing', async () => {
      const { tabs, session } = await signedInTabs();
      await expectNoEffect(
        tabs,
        { type: 'signed-out' },
        { type: 'signed-out', id: OTHER_ID },
        { type: 'signed-out', id: session.id, app: OTHER_APP },
      );
    });

    it('with the session id: every tab signs out, without revoking again or leaving for the provider', async () => {
      const { tabs, session } = await signedInTabs();
      const provider = toProvider().length;
      const navigations = h.assign.mock.calls.length;
      const from = FakeBroadcastChannel.posted.length;
      await postHostile({ type: 'signed-out', id: session.id });
      expect(answers(from)).toEqual([]);
      for (const tab of tabs) {
        expect(tab.state).toEqual(noSession('signed-out'));
        expect(await sent(tab)).toEqual([]);
      }
      expect(h.idp.to(REVOCATION_URL)).toEqual([]);
      expect(toProvider()).toHaveLength(provider);
      expect(h.assign.mock.calls.length).toBe(navigations);
      expect(localStorage.getItem(NAMES.key('hint'))).toBe('out');
    });
  });
});

describe('when the leader’s session ends', () => {
  it('its API refusing the renewed token too: it lets go of the lock, and a follower renews for the others', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const leader = await h.signIn();
    const follower = await openTab();
    await vi.advanceTimersByTimeAsync(1_000);
    h.idp.api = () => challenge(401, 'invalid_token');
    await expect(leader.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(leader.state.status).toBe('expired');
    h.idp.api = undefined;
    // The leader renewed once before its API refused the new token as well.
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(follower.state.status).toBe('signed-in');
    expect(h.idp.tokenRequests('refresh_token').length).toBeGreaterThanOrEqual(4);
    // The follower renewed as the holder of the lock: it asked no other tab.
    expect(posted('renew')).toEqual([]);
    expect((await follower.auth.fetch(API_URL)).status).toBe(200);
    expect(leader.state.status).toBe('expired');
  });

  it('its renewal refused by the provider: it tells the others, and every tab expires at once', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const tabs = [await h.signIn(), await openTab(), await openTab()];
    const id = (posted('offer')[0] as { session: { id: string } }).session.id;
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    // Renewals are due at four fifths of the token's life (48 s), in every tab.
    await vi.advanceTimersByTimeAsync(48_000);
    expect(posted('ended')).toEqual([{ app: NAMES.app, type: 'ended', id }]);
    for (const tab of tabs) {
      expect(tab.state).toMatchObject({ status: 'expired', error: { code: 'session_expired' } });
      await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    }
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(h.idp.to(API_URL)).toEqual([]);
  });
});

describe('two instances with different client ids on one origin', () => {
  const OTHER = () => ({ ...h.config, clientId: 'other-spa' }) as AppConfig;

  /** A provider that keeps one refresh token per client, as a real one does (the fake keeps one for all). */
  function refreshTokenPerClient() {
    const current = new Map<string, string | undefined>();
    let turn: Promise<unknown> = Promise.resolve();
    h.idp.token = (request, standard) => {
      const client = request.form.get('client_id') ?? '';
      const answer = turn.then(async () => {
        if (request.form.get('grant_type') === 'refresh_token') h.idp.currentRefreshToken = current.get(client);
        const response = await standard(request);
        current.set(client, h.idp.currentRefreshToken);
        return response;
      });
      turn = answer.catch(() => {});
      return answer;
    };
  }

  it('never see each other’s session, grants or sign-outs', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    refreshTokenPerClient();
    const alice: Tab[] = [await h.signIn()];
    h.idp.user = BOB;
    h.idp.idTokenExtra = { aud: 'other-spa' };
    const bob: Tab[] = [await h.signIn({ config: OTHER() })];
    h.idp.idTokenExtra = {};
    // New tabs of each: each asks its own app's tabs, and adopts its own app's session.
    alice.push(await openTab());
    setPageUrl(APP_URL + 'orders');
    const bobsNewTab = h.newTab(OTHER());
    await bobsNewTab.auth.start();
    bob.push(bobsNewTab);
    for (const tab of alice) expect(tab.state.user).toEqual(ALICE);
    for (const tab of bob) expect(tab.state.user).toEqual(BOB);
    /** The tokens the app's tabs send, one tab after the other. */
    const tokenOfApp = async (tabs: Tab[]) => {
      const tokens = new Set<string | null>();
      for (const tab of tabs) tokens.add(await tokenOf(tab));
      return tokens;
    };
    expect((await tokenOfApp(alice)).size).toBe(1);
    expect((await tokenOfApp(bob)).size).toBe(1);
    expect([...(await tokenOfApp(alice))]).not.toEqual([...(await tokenOfApp(bob))]);

    // Each app renews its own session, once per lifetime, through its own lock holder.
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    const renewals = (clientId: string) =>
      h.idp.tokenRequests('refresh_token').filter(({ form }) => form.get('client_id') === clientId).length;
    expect(renewals(CLIENT_ID)).toBeGreaterThanOrEqual(3);
    expect(renewals(CLIENT_ID)).toBeLessThanOrEqual(4);
    expect(renewals('other-spa')).toBe(renewals(CLIENT_ID));
    for (const tabs of [alice, bob]) for (const tab of tabs) expect(tab.state).toEqual(tabs[0].state);
    expect(alice[0].state.user).toEqual(ALICE);
    expect(bob[0].state.user).toEqual(BOB);

    // A token refused in Alice's follower: renewed once, by Alice's lock holder; Bob's tabs see nothing of it.
    const bobsState = structuredClone(bob[0].state);
    const bobsToken = await tokenOfApp(bob);
    const before = h.idp.tokenRequests('refresh_token').length;
    const [alicesToken] = await tokenOfApp(alice);
    h.idp.validAccessTokens.delete(alicesToken!.replace('Bearer ', ''));
    expect((await alice[1].auth.fetch(API_URL)).status).toBe(200);
    expect(
      h.idp
        .tokenRequests('refresh_token')
        .slice(before)
        .map(({ form }) => form.get('client_id')),
    ).toEqual([CLIENT_ID]);
    await settle();
    expect(alice[0].state).toEqual(alice[1].state);
    for (const tab of bob) expect(tab.state).toEqual(bobsState);
    expect(await tokenOfApp(bob)).toEqual(bobsToken);

    // Alice signs out: her tabs only. Bob's keep their session, token and hint.
    alice[1].auth.signOut();
    await settle();
    for (const tab of alice) expect(tab.state.status).toBe('signed-out');
    for (const tab of bob) expect(tab.state).toMatchObject({ status: 'signed-in', user: BOB });
    expect(await tokenOfApp(bob)).toEqual(bobsToken);
    expect(localStorage.getItem(appNames(ACCOUNT_URL, 'other-spa').key('hint'))).toBe('1');
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

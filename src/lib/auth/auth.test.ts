// Sign-out (auth.ts): the tokens are forgotten here and in every other tab of the session, requests in
// flight are aborted, only the non-secret "signed out on purpose" mark stays, and the next interactive
// sign-in lets the person choose an account (prompt=login). With the provider's endpoints: signout tests.
import { describe, expect, expectTypeOf, it, onTestFinished, vi } from 'vitest';
import { createAuth, type Auth, type SessionState } from '.';
import { noSession, useAuthHarness, type Tab } from './__fixtures__/harness';
import {
  ACCOUNT_URL,
  ALICE,
  API_URL,
  APP_URL,
  BOB,
  CLIENT_ID,
  FakeBroadcastChannel,
  NAMES,
  REVOCATION_URL,
  allStorage,
  setPageUrl,
  testOptions,
} from './__fixtures__/fake-idp';
import { assembleAuth } from './auth';
import { appNames } from './browser/storage';

const h = useAuthHarness();

const promptOf = (url: string) => new URL(url).searchParams.get('prompt');

const WELL_KNOWN = `${ACCOUNT_URL}/.well-known/openid-configuration`;

/**
 * A page of the app configured with its issuer alone: its engine must read the provider's metadata
 * before it can serve a page, and the fake provider does not serve it (unreachable).
 */
function pageWithoutMetadata() {
  const auth = assembleAuth(
    { issuer: ACCOUNT_URL, clientId: CLIENT_ID, redirectUri: APP_URL },
    { browser: h.port, network: (request) => h.idp.fetch(request) },
  );
  onTestFinished(() => auth.destroy());
  return auth;
}

async function expectUnauthenticatedWithoutRequest(tab: Tab) {
  const before = h.idp.requests.length;
  await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  expect(h.idp.requests.length).toBe(before);
}

describe('sign-out', () => {
  it('drops the token, aborts requests in flight, clears what it kept and shows the start page', async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Promise<Response>(() => {});
    const pending = tab.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(1));
    await h.startSignIn(); // another pending sign-in of this tab
    tab.auth.signOut();
    expect(await pending).toMatchObject({ code: 'aborted' });
    expect(h.idp.to(API_URL)[0].init.signal?.aborted).toBe(true);
    expect(tab.state).toEqual(noSession('signed-out'));
    // The module never navigates in the app (the app does), and sends nothing anywhere without endSessionUrl.
    expect(location.href).toBe(APP_URL);
    // Only the non-secret "signed out on purpose" mark stays, for prompt=login on the next sign-in.
    expect(allStorage()).toBe(`${NAMES.key('hint')}=out`);
    await expectUnauthenticatedWithoutRequest(tab);
  });

  it("tells the app's other hosts on its signal channel, token-free", async () => {
    const tab = await h.signIn();
    const signedOut = () => FakeBroadcastChannel.posted.filter(({ data }) => (data as { type: string }).type === 'signed-out');
    tab.auth.signOut();
    await vi.waitFor(() => expect(signedOut()).toHaveLength(1));
    expect(signedOut()[0]).toEqual({ name: NAMES.channel, data: { type: 'signed-out', app: NAMES.app } });
  });

  it('signing out in one tab signs out the others at once: token dropped, requests aborted, no echo', async () => {
    const other = await h.signIn();
    const tab = await h.signIn();
    h.idp.api = () => new Promise<Response>(() => {});
    const pending = other.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(1));
    tab.auth.signOut();
    await vi.waitFor(() => expect(other.state.status).toBe('signed-out'));
    expect(other.state.user).toBeNull();
    expect(await pending).toMatchObject({ code: 'aborted' });
    await expectUnauthenticatedWithoutRequest(other);
    expect(FakeBroadcastChannel.posted.filter(({ data }) => (data as { type: string }).type === 'signed-out')).toHaveLength(1);
  });

  it("where each tab runs its own engine, another tab's sign-out of this app signs this one out; anything else does not", async () => {
    h.sharedWorkers = false;
    const tab = await h.signIn();
    const otherTab = new FakeBroadcastChannel(NAMES.channel);
    const otherChannel = new FakeBroadcastChannel('something-else');
    otherChannel.postMessage({ app: NAMES.app, type: 'signed-out' });
    otherTab.postMessage({ app: NAMES.app, type: 'hello' });
    otherTab.postMessage('signed-out');
    otherTab.postMessage({ app: appNames('https://other.example', 'demo-spa').app, type: 'signed-out' });
    otherTab.postMessage({ app: NAMES.app, type: 'signed-in', sub: ALICE.sub });
    otherTab.postMessage({ app: NAMES.app, type: 'signed-in', sub: '' });
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    expect(tab.state.status).toBe('signed-in');
    otherTab.postMessage({ app: NAMES.app, type: 'signed-out' });
    await vi.waitFor(() => expect(tab.state).toMatchObject({ status: 'signed-out', user: null }));
    await expectUnauthenticatedWithoutRequest(tab);
  });

  it('where each tab runs its own engine, another person signing in elsewhere signs this tab out and revokes its tokens', async () => {
    h.sharedWorkers = false;
    const tab = await h.signIn({ options: testOptions({ server: { revocation_endpoint: REVOCATION_URL } }) });
    const { access_token } = h.idp.issued[0];
    new FakeBroadcastChannel(NAMES.channel).postMessage({ app: NAMES.app, type: 'signed-in', sub: BOB.sub });
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    await vi.waitFor(() => expect(h.idp.revoked()).toContain(access_token));
  });
});

describe('a page that cannot join the engine', () => {
  it("a stranger's page that hears of a sign-in elsewhere stays as it was, holding nothing; its own sign-in says why", async () => {
    const auth = pageWithoutMetadata();
    await auth.start();
    new FakeBroadcastChannel(NAMES.channel).postMessage({ app: NAMES.app, type: 'signed-in', sub: ALICE.sub });
    await vi.waitFor(() => expect(h.idp.requests.map(({ url }) => url)).toEqual([WELL_KNOWN]));
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    expect(auth.session.current).toEqual(noSession('signed-out'));
    await auth.signIn();
    expect(auth.session.current).toMatchObject({ status: 'error', error: { code: 'discovery_failed', reason: 'unreachable' } });
    expect(h.assign).not.toHaveBeenCalled();
  });

  it('destroy() while the page joins: an engine it cannot join leaves nothing held, and nothing unhandled', async () => {
    const tab = await h.signIn();
    await h.close(tab);
    const auth = pageWithoutMetadata();
    const started = auth.start();
    auth.destroy();
    await started;
    expect(h.idp.requests.at(-1)?.url).toBe(WELL_KNOWN);
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
  });

  it("its client's code failing to load (a deployment replaced it): the error shows, and the page holds no lock or port", async () => {
    const tab = await h.signIn();
    await h.close(tab);
    vi.doMock('./host/client', () => {
      throw new TypeError('Failed to fetch dynamically imported module');
    });
    onTestFinished(() => void vi.doUnmock('./host/client'));
    const [worker] = h.workers.values();
    const ports: unknown[] = [];
    worker.scope.addEventListener('connect', (event) => ports.push((event as MessageEvent).ports[0]));
    const reloaded = h.newTab();
    // Not an AuthError: shown as one, then thrown on, as every failure the module did not foresee.
    await expect(reloaded.auth.start()).rejects.toThrow();
    expect(reloaded.state).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
    // The join had gone while the code loaded: the engine learns the page is gone and serves its port no more.
    expect(ports).toHaveLength(1);
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    expect(worker.engine.pages()).toBe(0);
  });

  it("its client's code failing to load where no shared worker starts: the page holds no lock either", async () => {
    h.sharedWorkers = false;
    vi.doMock('./host/client', () => {
      throw new TypeError('Failed to fetch dynamically imported module');
    });
    onTestFinished(() => void vi.doUnmock('./host/client'));
    const tab = h.newTab();
    await tab.auth.start();
    // The failure thrown on is the import's (vitest wraps it), not one of tidying up after it.
    const failure = (await tab.auth.signIn().catch((err: unknown) => err)) as Error;
    expect(failure.cause).toEqual(new TypeError('Failed to fetch dynamically imported module'));
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    expect(h.assign).not.toHaveBeenCalled();
    // The in-page engine's code was asked for beside the client's: let it load here, not into the next test.
    await import('./host/in-page');
  });

  it("where no shared worker starts, the in-page engine's code is asked for while the client's still loads", async () => {
    h.sharedWorkers = false;
    let loadClient = () => {};
    const loading = new Promise<void>((resolve) => (loadClient = resolve));
    vi.doMock('./host/client', async (original) => {
      await loading;
      return original();
    });
    const inPageAsked = vi.fn();
    vi.doMock('./host/in-page', (original) => {
      inPageAsked();
      return original();
    });
    onTestFinished(() => void vi.doUnmock('./host/client'));
    onTestFinished(() => void vi.doUnmock('./host/in-page'));
    const tab = h.newTab();
    const signingIn = tab.auth.signIn();
    await vi.waitFor(() => expect(inPageAsked).toHaveBeenCalled());
    loadClient();
    await signingIn;
    expect(h.assign).toHaveBeenCalledOnce();
  });

  it("where the shared worker starts, a signed-in page never asks for the in-page engine's code", async () => {
    const inPageAsked = vi.fn();
    vi.doMock('./host/in-page', (original) => {
      inPageAsked();
      return original();
    });
    onTestFinished(() => void vi.doUnmock('./host/in-page'));
    await h.signIn();
    await h.closeTabs();
    h.reloaded = true;
    const tab = h.newTab();
    await tab.auth.start();
    expect(tab.state).toMatchObject({ status: 'signed-in', user: ALICE });
    expect(inPageAsked).not.toHaveBeenCalled();
  });

  it('destroy() while the page joins: once joined, it leaves at once, its lock let go', async () => {
    const tab = await h.signIn();
    await h.close(tab);
    const joining = h.newTab();
    const started = joining.auth.start();
    joining.auth.destroy();
    await started;
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    await expect(joining.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('account switching without provider endpoints', () => {
  it('the first interactive sign-in sends no prompt', async () => {
    expect(promptOf(await h.startSignIn())).toBeNull();
  });

  it('after an explicit sign-out the next interactive sign-in sends prompt=login, once', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    expect(promptOf(await h.startSignIn())).toBe('login');
    await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect(promptOf(await h.startSignIn())).toBeNull();
  });

  it('prompt=login survives a reload of the signed-out page, and reaches other tabs', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    setPageUrl(APP_URL);
    h.reloaded = true;
    const reloaded = h.newTab();
    await reloaded.auth.start();
    expect(h.assign).toHaveBeenCalledTimes(1); // no restore after a sign-out
    await reloaded.auth.signIn();
    expect(promptOf(h.lastNavigation())).toBe('login');
  });

  it('a plain reload while signed in shows the session the engine kept: no request to the identity service', async () => {
    await h.signIn();
    await h.closeTabs();
    h.reloaded = true;
    const navigations = h.assign.mock.calls.length;
    const requests = h.idp.requests.length;
    const tab = h.newTab();
    await tab.auth.start();
    expect(tab.state).toMatchObject({ status: 'signed-in', user: ALICE });
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(h.idp.requests.length).toBe(requests);
  });

  it('a plain reload once the engine is gone restores silently: prompt=none, never login', async () => {
    await h.signIn();
    await h.closeTabs();
    h.endWorkers();
    h.reloaded = true;
    const tab = h.newTab();
    await tab.auth.start();
    expect(promptOf(h.lastNavigation())).toBe('none');
  });

  it('sign-out without an end_session_endpoint stays in the app: no navigation', async () => {
    const tab = await h.signIn();
    const navigations = h.assign.mock.calls.length;
    tab.auth.signOut();
    // The provider's part of a sign-out runs with its module: let it load and run.
    await vi.dynamicImportSettled();
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(tab.state).toEqual(noSession('signed-out'));
  });
});

describe('settled()', () => {
  it('waits for start(): the session of the callback it completes, never loading', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    setPageUrl(`${APP_URL}?${callback}`);
    const tab = h.newTab();
    const settled = tab.auth.settled();
    expect(tab.state.status).toBe('loading');
    await tab.auth.start();
    expect(await settled).toMatchObject({ status: 'signed-in', user: ALICE });
  });

  it("is typed by the instance's claims", () => {
    expectTypeOf<Auth<{ sub: string; role: string }>['settled']>().toEqualTypeOf<
      () => Promise<SessionState<{ sub: string; role: string }>>
    >();
  });
});

describe('the idle option', () => {
  const options = {
    server: {
      issuer: 'https://id.example.test',
      authorization_endpoint: 'https://id.example.test/authorize',
      token_endpoint: 'https://id.example.test/token',
      userinfo_endpoint: 'https://id.example.test/userinfo',
    },
    clientId: 'spa',
    redirectUri: APP_URL,
  };

  it.each([
    ['warnMs equal to timeoutMs', { timeoutMs: 60_000, warnMs: 60_000 }],
    ['warnMs above timeoutMs', { timeoutMs: 60_000, warnMs: 90_000 }],
    ['no warning', { timeoutMs: 60_000, warnMs: 0 }],
    ['a negative timeout', { timeoutMs: -60_000, warnMs: -90_000 }],
    ['more than a day', { timeoutMs: 86_400_001, warnMs: 60_000 }],
    ['fractions of a millisecond', { timeoutMs: 60_000.5, warnMs: 30_000 }],
    ['not a number', { timeoutMs: '60000', warnMs: 30_000 }],
    ['NaN', { timeoutMs: NaN, warnMs: 30_000 }],
  ])('%s is a TypeError from createAuth', (_, idle) => {
    expect(() => createAuth({ ...options, idle: idle as { timeoutMs: number; warnMs: number } })).toThrow(
      new TypeError('createAuth: idle wants whole ms, 0 < warnMs < timeoutMs <= 24 h'),
    );
  });

  it("an instance with idle: stayActive() tells the app's other hosts, token-free", async () => {
    const tab = await h.signIn({ options: { ...h.options, idle: { timeoutMs: 600_000, warnMs: 60_000 } } });
    const active = () => FakeBroadcastChannel.posted.filter(({ data }) => (data as { type: string }).type === 'active');
    const before = active().length;
    tab.auth.stayActive();
    await vi.waitFor(() => expect(active()).toHaveLength(before + 1));
    expect(active().at(-1)).toEqual({ name: NAMES.channel, data: { type: 'active', app: NAMES.app } });
    expect(tab.auth.idle.current).toEqual({ warning: false });
  });

  it("on a stranger's page, stayActive() does nothing: no engine started, nothing sent", async () => {
    const stranger = await h.loadAt(APP_URL, { ...h.options, idle: { timeoutMs: 600_000, warnMs: 60_000 } });
    stranger.auth.stayActive();
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    expect(h.workers.size).toBe(0);
    expect(h.locks.held()).toEqual([]);
    expect(FakeBroadcastChannel.posted).toEqual([]);
    expect(stranger.state).toEqual(noSession('signed-out'));
  });

  it('while the warning shows, input is no answer: only stayActive() keeps the session', async () => {
    vi.useFakeTimers();
    const tab = await h.signIn({ options: { ...h.options, idle: { timeoutMs: 10_000, warnMs: 5_000 } } });
    await vi.advanceTimersByTimeAsync(6_000);
    expect(tab.auth.idle.current).toMatchObject({ warning: true });
    // A press or a key on the dialog (its button's pointerdown) must not close it before the click.
    window.dispatchEvent(new PointerEvent('pointerdown'));
    window.dispatchEvent(new KeyboardEvent('keydown'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(tab.auth.idle.current).toMatchObject({ warning: true });
    tab.auth.stayActive();
    await vi.waitFor(() => expect(tab.auth.idle.current).toEqual({ warning: false }));
    // Once it is gone, input counts again: a key before the next warning puts that warning off.
    await vi.advanceTimersByTimeAsync(3_000);
    window.dispatchEvent(new KeyboardEvent('keydown'));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(tab.auth.idle.current).toEqual({ warning: false });
    expect(tab.state.status).toBe('signed-in');
  });

  it("an idle end is the events' sign-out with reason idle, and the session's notice says so", async () => {
    const tab = await h.signIn({ options: { ...h.options, idle: { timeoutMs: 400, warnMs: 200 } } });
    const reasons: string[] = [];
    tab.auth.on('signed-out', ({ reason }) => reasons.push(reason));
    await vi.waitFor(() => expect(reasons).toEqual(['idle']), { timeout: 5_000 });
    expect(tab.auth.session.current).toMatchObject({ status: 'signed-out', user: null, error: { code: 'idle_timeout' } });
  });

  it('takes whole milliseconds with the warning before the end, up to a day', () => {
    expect(createAuth({ ...options, idle: { timeoutMs: 86_400_000, warnMs: 1 } }).idle.current).toEqual({ warning: false });
  });
});

describe('the keepSessionMs option', () => {
  const options = testOptions();

  it.each([0, 1, 120_000, 86_400_000])('takes %s ms: from none to a day', (keepSessionMs) => {
    expect(() => createAuth({ ...options, keepSessionMs })).not.toThrow();
  });

  it.each([-1, 86_400_001, 1.5, NaN, '120000'])('refuses %s with a TypeError from createAuth', (keepSessionMs) => {
    expect(() => createAuth({ ...options, keepSessionMs: keepSessionMs as number })).toThrow(
      new TypeError('createAuth: keepSessionMs wants whole ms from 0 to 24 h'),
    );
  });
});

// Sessions without a refresh token (frames.ts, page/frame.ts): renewed before expiry by a prompt=none
// authorization in a hidden frame, with no navigation, in both hosts; where the frame cannot work, the
// session says when it ends and ends then; a lone reload the worker could not keep restores in a frame.
// Observed at the edges: the frames the pages opened, the requests the provider saw, the page's store.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import { ACCOUNT_URL, API_URL, APP_URL, BOB, NAMES, REVOCATION_URL, setPageUrl } from '../__fixtures__/fake-idp';
import { assembleAuth } from '../auth';
import type { Browser } from '../browser/browser';
import { FRAME_PREFIX } from '../browser/storage';
import type { FrameAnswer } from '../host/messages';
import { createFrames } from './frames';
import type { PagePort } from './pages';
import type { Server } from '../protocol/steps';

const h = useAuthHarness({ server: { revocation_endpoint: REVOCATION_URL }, hiddenFrame: true });

// Each case signs in and renews with WebCrypto, which runs in real time between the fake clock's steps:
// a few seconds on a loaded machine (CI runs the suite on every CPU), too close to the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

/** Access tokens live 60 s: a frame renews at half that, 30 s before expiry. */
const LIFETIME_S = 60;

const params = (url: string) => new URL(url).searchParams;

/** A timer of the real clock, taken before any test fakes the clock. */
const realSetTimeout = globalThis.setTimeout;

/**
 * Moves the fake clock a second at a time until `check` passes, at most `maxMs`: WebCrypto (PKCE, the
 * nonce) answers in real time, so each step lets the real clock run a moment too.
 */
async function until(check: () => void, maxMs: number) {
  for (let waited = 0; ; waited += 1000) {
    try {
      return check();
    } catch (err) {
      if (waited >= maxMs) throw err;
    }
    await vi.advanceTimersByTimeAsync(1000);
    await new Promise((resolve) => realSetTimeout(resolve, 5));
  }
}

/** Alice signed in with 60-second tokens, on the fake clock, in the host `sharedWorkers` says. */
async function signedIn(sharedWorkers: boolean) {
  vi.useFakeTimers();
  h.sharedWorkers = sharedWorkers;
  h.idp.expiresIn = LIFETIME_S;
  const tab = await h.signIn();
  const navigations = h.assign.mock.calls.length;
  return { tab, navigations, expiresAt: tab.state.expiresAt! };
}

/** Alice was signed in; her only tab reloads, and the browser did not keep the worker (no extended lifetime). */
async function aloneAfterReload(sharedWorkers = true) {
  await signedIn(sharedWorkers);
  vi.useRealTimers();
  await h.closeTabs();
  h.endWorkers();
  h.reloaded = true;
}

describe.each([
  { host: 'worker', sharedWorkers: true },
  { host: 'in-page', sharedWorkers: false },
])('in the $host host', ({ sharedWorkers }) => {
  it('renews before expiry in a hidden frame: a fresh prompt=none request, new tokens, the same person, no navigation', async () => {
    const { tab, navigations, expiresAt } = await signedIn(sharedWorkers);
    await vi.advanceTimersByTimeAsync((LIFETIME_S / 2 - 1) * 1000);
    expect(h.frames).toHaveLength(0);
    await until(() => expect(tab.state.expiresAt).toBeGreaterThan(expiresAt), 5000);
    expect(h.frames).toHaveLength(1);
    const frame = params(h.frames[0]);
    const signIn = params(tab.authorizeUrl);
    expect(frame.get('prompt')).toBe('none');
    for (const name of ['state', 'nonce', 'code_challenge'] as const) expect(frame.get(name)).not.toBe(signIn.get(name));
    expect(frame.get('redirect_uri')).toBe(APP_URL);
    expect(tab.state).toMatchObject({ status: 'signed-in', user: { sub: 'alice-sub' }, endsAt: null });
    expect(h.assign.mock.calls).toHaveLength(navigations);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    // auth.fetch sends the new token.
    await tab.auth.fetch(API_URL);
    expect(h.idp.to(API_URL).at(-1)!.headers.get('authorization')).toBe(`Bearer ${h.idp.issued.at(-1)!.access_token}`);
    // Again before the next expiry, and so on.
    const renewed = tab.state.expiresAt!;
    await until(() => expect(tab.state.expiresAt).toBeGreaterThan(renewed), (LIFETIME_S / 2 + 5) * 1000);
    expect(h.frames).toHaveLength(2);
    expect(tab.state.status).toBe('signed-in');
  });

  it('framing refused: the session says it ends at expiry, opens no other frame, and ends then', async () => {
    const { tab, expiresAt } = await signedIn(sharedWorkers);
    const failures: string[] = [];
    tab.auth.on('renew-failed', ({ error }) => failures.push(error.code));
    h.frameAnswer = 'blocked';
    await until(() => expect(tab.state.endsAt).toBe(expiresAt), (LIFETIME_S / 2 + 5) * 1000);
    expect(tab.state.status).toBe('signed-in');
    expect(failures).toEqual(['frame_refused']);
    // A page that joins now is told too.
    if (sharedWorkers) expect((await h.loadAt(APP_URL)).state.endsAt).toBe(expiresAt);
    // Nothing is made in real time any more (no frame): straight to expiry.
    await vi.advanceTimersByTimeAsync(expiresAt - Date.now() - 1);
    expect(tab.state.status).toBe('signed-in');
    await until(() => expect(tab.state.status).toBe('expired'), 5000);
    expect(h.frames).toHaveLength(1);
  });

  it('no answer from the frame within the timeout: as refused', async () => {
    const { tab, expiresAt } = await signedIn(sharedWorkers);
    h.frameAnswer = 'none';
    await vi.advanceTimersByTimeAsync((LIFETIME_S / 2 + 10) * 1000);
    expect(tab.state.endsAt).toBeNull();
    // The page gives up the request timeout (15 s) after it opened the frame.
    await until(() => expect(h.frames).toHaveLength(1), 5000);
    await until(() => expect(tab.state.endsAt).toBe(expiresAt), 16_000);
  });

  it('the frame is answered as a top-level callback is checked: another issuer is refused, and nothing is exchanged', async () => {
    const { tab, expiresAt } = await signedIn(sharedWorkers);
    const exchanges = h.idp.tokenRequests().length;
    h.frameAnswer = (url) => h.idp.approve(url, { iss: 'https://evil.example' });
    await until(() => expect(tab.state.endsAt).toBe(expiresAt), (LIFETIME_S / 2 + 5) * 1000);
    expect(h.idp.tokenRequests()).toHaveLength(exchanges);
  });

  it('answered as another person: the session ends, and what that answer gave is revoked', async () => {
    const { tab } = await signedIn(sharedWorkers);
    h.idp.user = BOB;
    await until(() => expect(tab.state.status).toBe('expired'), (LIFETIME_S / 2 + 5) * 1000);
    expect(tab.state.error).toMatchObject({ code: 'session_expired' });
    expect(h.idp.revoked()).toContain(h.idp.issued.at(-1)!.access_token);
    expect(tab.state.user).toBeNull();
  });

  it('answered after a sign-out: what that answer gave is revoked, and the tab stays signed out', async () => {
    const { tab } = await signedIn(sharedWorkers);
    const issued = h.idp.issued.length;
    h.idp.token = async (request, standard) => {
      tab.auth.signOut();
      await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
      return standard(request);
    };
    await until(() => expect(h.idp.issued).toHaveLength(issued + 1), (LIFETIME_S / 2 + 5) * 1000);
    await until(() => expect(h.idp.revoked()).toContain(h.idp.issued.at(-1)!.access_token), 5000);
    expect(tab.state).toMatchObject({ status: 'signed-out', user: null });
  });

  it('the network failing under the exchange: offline, tried again, and renewed once it is back; no end announced', async () => {
    const { tab, expiresAt } = await signedIn(sharedWorkers);
    h.idp.token = () => Promise.reject(new TypeError('Failed to fetch'));
    await until(() => expect(tab.state.offline).toBe(true), (LIFETIME_S / 2 + 5) * 1000);
    expect(tab.state.endsAt).toBeNull();
    h.idp.token = undefined;
    await until(() => expect(tab.state.expiresAt).toBeGreaterThan(expiresAt), 10_000);
    expect(tab.state).toMatchObject({ status: 'signed-in', offline: false, endsAt: null });
    expect(h.frames.length).toBeGreaterThanOrEqual(2);
  });

  it('a lone reload the browser did not keep restores in a hidden frame, with no navigation', async () => {
    await aloneAfterReload(sharedWorkers);
    const navigations = h.assign.mock.calls.length;
    const tab = await h.loadAt(APP_URL);
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-in'));
    expect(tab.state.user?.sub).toBe('alice-sub');
    expect(h.frames).toHaveLength(1);
    expect(h.assign.mock.calls).toHaveLength(navigations);
  });

  it('a restore the provider answers login_required is signed out, quietly, with no navigation', async () => {
    await aloneAfterReload(sharedWorkers);
    h.frameAnswer = (url) => h.idp.deny(url, 'login_required');
    const navigations = h.assign.mock.calls.length;
    const tab = await h.loadAt(APP_URL);
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    expect(tab.state.error).toBeNull();
    expect(h.assign.mock.calls).toHaveLength(navigations);
  });

  it('a restore where the frame cannot work goes to the provider at top level (prompt=none), as without it', async () => {
    await aloneAfterReload(sharedWorkers);
    h.frameAnswer = 'blocked';
    const navigations = h.assign.mock.calls.length;
    await h.loadAt(APP_URL);
    await vi.waitFor(() => expect(h.assign.mock.calls).toHaveLength(navigations + 1));
    expect(params(h.lastNavigation()).get('prompt')).toBe('none');
  });
});

describe('a frame due while no page is open (the worker keeps the session after the last)', () => {
  it('waits for a page: the next page that joins renews in its frame, before expiry', async () => {
    vi.useFakeTimers();
    h.idp.expiresIn = LIFETIME_S;
    const first = await h.signIn();
    const expiresAt = first.state.expiresAt!;
    await h.close(first);
    await until(() => expect(h.workers.size).toBe(1), 0);
    // Past the renewal's moment, still before expiry: no page, no frame.
    await vi.advanceTimersByTimeAsync((LIFETIME_S / 2 + 5) * 1000);
    expect(h.frames).toHaveLength(0);
    const back = await h.loadAt(APP_URL);
    await until(() => expect(back.state.expiresAt).toBeGreaterThan(expiresAt), 5000);
    expect(h.frames).toHaveLength(1);
    expect(back.state.endsAt).toBeNull();
  });
});

describe('with hiddenFrame off', () => {
  it('a session without a refresh token opens no frame and ends at expiry', async () => {
    vi.useFakeTimers();
    const options = { ...h.options, hiddenFrame: false };
    h.idp.expiresIn = LIFETIME_S;
    const tab = await h.signIn({ options });
    await vi.advanceTimersByTimeAsync((LIFETIME_S + 1) * 1000);
    expect(tab.state.status).toBe('expired');
    expect(h.frames).toHaveLength(0);
  });
});

describe('the engine takes a frame’s answer only from the page it asked, for the state it sent', () => {
  const server = {
    as: { issuer: ACCOUNT_URL, authorization_endpoint: `${ACCOUNT_URL}/authorize` },
    client: { client_id: 'spa' },
    redirectUri: APP_URL,
    scope: 'openid',
    resources: [],
    timeoutMs: 1000,
    network: () => Promise.reject(new TypeError('offline')),
  } as unknown as Server;
  const port = () => ({ postMessage: vi.fn(), addEventListener() {}, removeEventListener() {} }) as unknown as PagePort;

  it('ignores another page, and another state; settles on the asked page with its state', async () => {
    vi.useFakeTimers();
    const asked = port();
    const other = port();
    const frames = createFrames({
      server,
      pages: { tell: (page, message) => page.postMessage(message), pick: () => asked },
      now: Date.now,
    });
    const result = frames.authorize('openid', undefined).catch((err: unknown) => err);
    await vi.waitFor(() => expect(asked.postMessage).toHaveBeenCalled());
    const { state, url } = vi.mocked(asked.postMessage).mock.calls[0][0] as { state: string; url: string };
    expect(params(url).get('state')).toBe(state);
    const refused: FrameAnswer = { state, failure: 'blocked' };
    frames.answered(refused, other);
    frames.answered({ state: `${state}x`, failure: 'blocked' }, asked);
    await vi.advanceTimersByTimeAsync(100);
    let settled = false;
    void result.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    frames.answered(refused, asked);
    expect(await result).toMatchObject({ code: 'frame_refused', reason: 'blocked' });
  });

  it('asks for the scope it is given (a session a step-up widened), and takes an answer with none waiting as nothing', async () => {
    vi.useFakeTimers();
    const asked = port();
    const frames = createFrames({
      server,
      pages: { tell: (page, message) => page.postMessage(message), pick: () => asked },
      now: Date.now,
    });
    frames.answered({ state: 'none asked', failure: 'blocked' }, asked);
    const result = frames.authorize('openid notes.write', undefined).catch((err: unknown) => err);
    await vi.waitFor(() => expect(asked.postMessage).toHaveBeenCalled());
    const { state, url } = vi.mocked(asked.postMessage).mock.calls[0][0] as { state: string; url: string };
    expect(params(url).get('scope')).toBe('openid notes.write');
    frames.answered({ state, failure: 'blocked' }, asked);
    expect(await result).toMatchObject({ code: 'frame_refused', reason: 'blocked' });
  });

  it('without a page to ask, refuses at once; with no answer, gives up after the timeout and slack', async () => {
    vi.useFakeTimers();
    const none = createFrames({ server, pages: { tell: () => {}, pick: () => undefined }, now: Date.now });
    await expect(none.authorize('openid', undefined)).rejects.toMatchObject({
      code: 'frame_refused',
    });
    const tell = vi.fn();
    const silent = createFrames({ server, pages: { tell, pick: port }, now: Date.now });
    let answer: unknown;
    void silent.authorize('openid', undefined).catch((err: unknown) => (answer = err));
    // The request is built in real time (WebCrypto); the clock stands still meanwhile.
    while (!tell.mock.calls.length) await new Promise((resolve) => realSetTimeout(resolve, 5));
    await vi.advanceTimersByTimeAsync(1000 + 5000 - 1);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(answer).toMatchObject({ code: 'frame_refused', reason: 'timeout' });
  });
});

describe('a page loading in a hidden frame', () => {
  const CALLBACK = new URLSearchParams({ code: 'c-1', state: 's-1', error_description: 'x'.repeat(5000) });

  function framedPage(name: string) {
    setPageUrl(`${APP_URL}?${CALLBACK}`);
    const toParent = vi.fn();
    const page: Browser = { ...h.port(), frameName: () => name, toParent };
    const auth = assembleAuth(h.options, { browser: () => page, network: (request) => h.idp.fetch(request) });
    return { auth, toParent };
  }

  it('in its app’s frame, hands the response (free text cut) to the page that framed it, and does nothing else', async () => {
    const { auth, toParent } = framedPage(NAMES.frame);
    expect(await auth.start()).toEqual({});
    expect(toParent).toHaveBeenCalledOnce();
    const { state, response } = toParent.mock.calls[0][0] as { state: string; response: string };
    expect(state).toBe('s-1');
    expect(new URLSearchParams(response).get('code')).toBe('c-1');
    expect(new URLSearchParams(response).get('error_description')).toHaveLength(2048);
    // The response left the frame's URL; no engine, no request, no navigation, nothing stored.
    expect(location.search).toBe('');
    expect(h.workers.size).toBe(0);
    expect(h.idp.requests).toEqual([]);
    expect(h.assign).not.toHaveBeenCalled();
    expect(auth.session.current.status).toBe('loading');
  });

  it("in another app's (or instance's) frame, leaves everything to that one: the URL as it is, nothing sent", async () => {
    const { auth, toParent } = framedPage(`${FRAME_PREFIX}["https://other.example","other"]`);
    expect(await auth.start()).toEqual({});
    expect(toParent).not.toHaveBeenCalled();
    expect(location.search).toBe(`?${CALLBACK}`);
    expect(h.workers.size).toBe(0);
    expect(h.idp.requests).toEqual([]);
    expect(h.assign).not.toHaveBeenCalled();
  });
});

describe('a sign-out while a code is exchanged', () => {
  /**
   * Loads the app at `url` in a tab while another tab signs out during its code exchange: the token
   * endpoint answers once the engine has told the loading tab the session ended.
   */
  async function signedOutDuringExchange(url: string) {
    const other = h.newTab();
    setPageUrl(url);
    const tab = h.newTab();
    h.idp.token = async (request, standard) => {
      other.auth.signOut();
      await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
      return standard(request);
    };
    await tab.auth.start();
    return tab;
  }

  it("a restore's: what the exchange gave is revoked, and the page stays signed out", async () => {
    await aloneAfterReload();
    const tab = await signedOutDuringExchange(APP_URL);
    expect(tab.state.status).toBe('signed-out');
    await vi.waitFor(() => expect(h.idp.revoked()).toContain(h.idp.issued.at(-1)!.access_token));
  });

  it("a sign-in's callback: what the exchange gave is revoked, and no session begins", async () => {
    const authorizeUrl = await h.startSignIn();
    const tab = await signedOutDuringExchange(`${APP_URL}?${h.idp.approve(authorizeUrl)}`);
    expect(tab.state.status).toBe('signed-out');
    await vi.waitFor(() => expect(h.idp.revoked()).toContain(h.idp.issued.at(-1)!.access_token));
  });
});

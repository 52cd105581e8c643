// The session engine's rules that hold by construction, in both of its hosts: the app's shared worker
// (every tab one session) and the in-page engine (each tab its own session; the tabs share only the
// token-free signal). Then the engine itself, over a port: its wire, and what it answers.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness, type Tab } from '../__fixtures__/harness';
import {
  ALICE,
  API_ORIGIN,
  API_URL,
  APP_URL,
  BOB,
  END_SESSION_URL,
  FakeMessageChannel,
  REVOCATION_URL,
  USERINFO_URL,
  challenge,
  testOptions,
} from '../__fixtures__/fake-idp';
import { createEngine, type PagePort } from './engine';

const h = useAuthHarness({ server: { revocation_endpoint: REVOCATION_URL, end_session_endpoint: END_SESSION_URL } });

/** The access tokens of every session the provider began (code exchanges, which carry an ID token). */
const sessionTokens = () => h.idp.issued.filter((body) => body.id_token).map((body) => body.access_token as string);

/** Resolves once the provider has been asked to revoke every one of `tokens`. */
const revokes = (tokens: string[]) => vi.waitFor(() => expect(h.idp.revoked()).toEqual(expect.arrayContaining(tokens)));

const subOf = (tab: Tab) => tab.state.user?.sub;

/** Every message under way delivered: ports and channels deliver in microtasks, all run before the next task. */
const delivered = () => new Promise((resolve) => setTimeout(resolve, 0));

describe.each([
  { host: 'worker', sharedWorkers: true },
  { host: 'in-page', sharedWorkers: false },
])('by construction, in the $host host', ({ sharedWorkers }) => {
  /** Alice signed in, in two tabs: the worker's second tab joins her session; in-page, it signs in itself. */
  async function twoTabs() {
    h.sharedWorkers = sharedWorkers;
    const first = await h.signIn();
    const second = sharedWorkers ? await h.loadAt(APP_URL) : await h.signIn();
    expect([subOf(first), subOf(second)]).toEqual(['alice-sub', 'alice-sub']);
    return [first, second];
  }

  /** A step-up from `tab` (it leaves for the provider), answered by the provider as it is set now. */
  async function stepUp(tab: Tab) {
    await tab.auth.signIn({ acr_values: 'mfa' });
    await h.close(tab);
    return h.completeCallback(h.idp.approve(h.lastNavigation()));
  }

  describe('sign-out from any tab ends the session in every tab and revokes it', () => {
    it('from a signed-in tab', async () => {
      const [first, second] = await twoTabs();
      const held = sessionTokens();
      second.auth.signOut();
      await vi.waitFor(() => expect(first.state.status).toBe('signed-out'));
      await revokes(held);
    });

    it('from a tab whose own session expired (the provider refused its refresh token)', async () => {
      h.idp.refreshTokens = true;
      const [first, second] = await twoTabs();
      const held = sessionTokens();
      h.idp.currentRefreshToken = undefined;
      h.idp.api = () => challenge(401, 'invalid_token');
      await expect(first.auth.fetch(API_URL)).rejects.toBeDefined();
      await vi.waitFor(() => expect(first.state.status).toBe('expired'));
      first.auth.signOut();
      await vi.waitFor(() => expect(second.state.status).toBe('signed-out'));
      await revokes(held);
    });

    it('reaches a tab whose own session expired: it shows signed-out, and what it held is revoked', async () => {
      h.idp.refreshTokens = true;
      const [first, second] = await twoTabs();
      const held = sessionTokens();
      h.idp.currentRefreshToken = undefined;
      h.idp.api = () => challenge(401, 'invalid_token');
      await expect(first.auth.fetch(API_URL)).rejects.toBeDefined();
      await vi.waitFor(() => expect(first.state.status).toBe('expired'));
      second.auth.signOut();
      await vi.waitFor(() => expect(first.state.status).toBe('signed-out'));
      await revokes(held);
    });

    it('from a tab whose step-up failed', async () => {
      const [first, second] = await twoTabs();
      const held = sessionTokens();
      h.idp.idTokenExtra = { acr: 'weak' };
      const failed = await stepUp(first);
      expect(failed.state.error?.code).toBe('step_up_failed');
      failed.auth.signOut();
      await vi.waitFor(() => expect(second.state.status).toBe('signed-out'));
      // In-page, the tab that left for the provider took its session with it: the open tab's is revoked.
      await revokes(sharedWorkers ? held : held.slice(-1));
    });
  });

  describe('one person per app per browser', () => {
    it("a sign-in as someone else replaces alice's session in every tab (in-page: signs them out), revoking hers", async () => {
      const [first, second] = await twoTabs();
      const held = sessionTokens();
      h.idp.user = BOB;
      const bobs = await h.signIn();
      expect(subOf(bobs)).toBe('bob-sub');
      const expected = sharedWorkers ? { status: 'signed-in', sub: 'bob-sub' } : { status: 'signed-out', sub: undefined };
      for (const tab of [first, second])
        await vi.waitFor(() => expect({ status: tab.state.status, sub: subOf(tab) }).toEqual(expected));
      await revokes(held);
      expect(h.idp.revoked()).not.toContain(sessionTokens().at(-1));
    });

    it('a step-up answered as the same person widens the session, in every tab, and revokes nothing', async () => {
      const [first, second] = await twoTabs();
      const stepped = await stepUp(first);
      expect(stepped.state).toMatchObject({ status: 'signed-in', error: null, user: { sub: 'alice-sub' } });
      await delivered();
      expect({ status: second.state.status, sub: subOf(second) }).toEqual({ status: 'signed-in', sub: 'alice-sub' });
      expect(h.idp.revoked()).toEqual([]);
    });

    it('a step-up that returns another person is refused (account_changed) and changes nothing', async () => {
      const [first, second] = await twoTabs();
      const alices = sessionTokens();
      h.idp.user = BOB;
      const refused = await stepUp(first);
      expect(refused.state.error?.code).toBe('account_changed');
      expect(subOf(refused)).not.toBe('bob-sub');
      await delivered();
      expect({ status: second.state.status, sub: subOf(second) }).toEqual({ status: 'signed-in', sub: 'alice-sub' });
      // What the provider gave bob is revoked; nothing of alice's session is.
      const bobs = sessionTokens().filter((token) => !alices.includes(token));
      await revokes(bobs);
      expect(h.idp.revoked().filter((token) => alices.includes(token))).toEqual([]);
    });
  });

  it('an idle sign-out revokes the session, whichever engine noticed it', async () => {
    vi.useFakeTimers();
    h.options = { ...h.options, idle: { timeoutMs: 60_000, warnMs: 10_000 } };
    const [first, second] = await twoTabs();
    const held = sessionTokens();
    await vi.advanceTimersByTimeAsync(60_000);
    for (const tab of [first, second]) await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    expect(first.state.error?.code).toBe('idle_timeout');
    await revokes(held);
  });

  it("nothing of one app's session reaches another app's pages", async () => {
    h.sharedWorkers = sharedWorkers;
    const other = testOptions({ clientId: 'other-spa', server: { revocation_endpoint: REVOCATION_URL } });
    const alices = await h.signIn();
    const stranger = await h.loadAt(APP_URL, other);
    expect(stranger.state.status).toBe('signed-out');
    h.idp.user = BOB;
    const bobs = await h.signIn({ options: other });
    const held = sessionTokens();
    bobs.auth.signOut();
    await revokes(held.slice(-1));
    await delivered();
    expect({ status: alices.state.status, sub: subOf(alices) }).toEqual({ status: 'signed-in', sub: 'alice-sub' });
    expect(h.idp.revoked()).not.toContain(held[0]);
    expect(h.workers.size).toBe(sharedWorkers ? 2 : 0);
  });
});

describe('the engine over a port', () => {
  /** An engine of the test app, the signal it would post to other tabs, and pages served over fake ports. */
  function engine(now = Date.now) {
    const signal = { signedIn: vi.fn(), signedOut: vi.fn(), active: vi.fn() };
    const made = createEngine({
      options: h.options,
      network: (request) => h.idp.fetch(request),
      now,
      signal,
    });
    let next = 0;
    function page() {
      const { port1, port2 } = new FakeMessageChannel();
      made.serve(port1 as unknown as PagePort);
      const replies: Record<string, unknown>[] = [];
      port2.addEventListener('message', (event) => replies.push((event as MessageEvent).data));
      port2.start();
      /** Sends a command; resolves with the engine's reply to it. */
      async function send(type: string, body: unknown = {}) {
        const id = next++;
        port2.postMessage({ id, type, body });
        // Some commands do WebCrypto work in real time: a loaded machine may take a few seconds.
        await vi.waitFor(() => expect(replies.some((reply) => reply.id === id)).toBe(true), { timeout: 10_000 });
        return replies.find((reply) => reply.id === id)!;
      }
      return { port: port2, replies, send };
    }
    return { engine: made, signal, page };
  }

  /** Alice's sign-in through `page`: the authorization request, the provider's approval, the callback. */
  async function signIn(page: ReturnType<ReturnType<typeof engine>['page']>) {
    const { answer } = (await page.send('authorize', { returnTo: '/notes', ask: {} })) as {
      answer: { url: string; pending: object };
    };
    const response = h.idp.approve(answer.url).toString();
    return page.send('complete', { response, pending: answer.pending });
  }

  it('answers a command by its id; an AuthError crosses as its code and details, never its cause', async () => {
    const { page } = engine();
    const one = page();
    expect(await one.send('wake')).toEqual({ id: 0, answer: null });
    expect(await one.send('token', { origin: 'https://api.test' })).toEqual({ id: 1, error: { code: 'unauthenticated' } });
  });

  it('does nothing for what is not a checked command: refuses it when numbered, ignores it otherwise', async () => {
    const { page } = engine();
    const one = page();
    one.port.postMessage({ id: 90, type: 'steal', body: {} });
    one.port.postMessage({ id: 91, type: 'token', body: { origin: 7 } });
    one.port.postMessage('wake');
    one.port.postMessage({ type: 'token', body: { origin: 'https://api.test' } });
    // An id that is not a whole number (text, a fraction) is none a page gives: nothing answers it.
    one.port.postMessage({ id: '92', type: 'steal', body: {} });
    one.port.postMessage({ id: 9.5, type: 'steal', body: {} });
    await one.send('wake');
    expect(one.replies.map(({ id, error }) => ({ id, error }))).toEqual([
      { id: 90, error: { code: 'invalid_response' } },
      { id: 91, error: { code: 'invalid_response' } },
      { id: 0, error: undefined },
    ]);
  });

  it('answers a restore: `restored` while it holds a session, `unavailable` without the hidden frame', async () => {
    const { page } = engine();
    const one = page();
    // The harness turns the hidden frame off: a page that finds no session restores at top level.
    expect(await one.send('restore')).toMatchObject({ answer: 'unavailable' });
    await signIn(one);
    expect(await one.send('restore')).toMatchObject({ answer: 'restored' });
  });

  it("a frame's answer sent to an engine without the hidden frame (any script can send one) changes nothing", async () => {
    const { page } = engine();
    const one = page();
    await signIn(one);
    expect(await one.send('framed', { state: 's', response: 'code=c&state=s' })).toEqual({
      id: expect.any(Number),
      answer: null,
    });
    expect(told(one)).toEqual(['signed-in']);
  });

  it('tells every page of a sign-in, gives a joining page the session, and tokens only to who asks', async () => {
    const { page, signal } = engine();
    const [one, two] = [page(), page()];
    expect(await signIn(one)).toMatchObject({ answer: { returnTo: '/notes' } });
    const told = () => two.replies.map((reply) => reply.transition as { type: string; user?: { sub: string } });
    await vi.waitFor(() => expect(told()).toContainEqual(expect.objectContaining({ type: 'signed-in', user: ALICE })));
    const joined = await page().send('join', { page: 'p'.repeat(36) });
    expect(joined).toMatchObject({ answer: { session: { status: 'signed-in', user: { sub: 'alice-sub' } } } });
    expect(signal.signedIn).toHaveBeenCalledWith('alice-sub');
    const token = sessionTokens()[0];
    expect(JSON.stringify([one.replies, two.replies, joined])).not.toContain(token);
    expect(await two.send('token', { origin: 'https://api.test' })).toMatchObject({ answer: { accessToken: token } });
  });

  it('forget() drops the session without a word to the provider', async () => {
    const { engine: made, page } = engine();
    const one = page();
    await signIn(one);
    const requests = h.idp.requests.length;
    made.forget();
    expect(await one.send('join', { page: 'p'.repeat(36) })).toMatchObject({ answer: { session: { status: 'signed-out' } } });
    expect(h.idp.requests).toHaveLength(requests);
  });

  /** The transitions `page` was told, by type. */
  const told = (page: { replies: Record<string, unknown>[] }) =>
    page.replies.flatMap((reply) => (reply.notice === 'transition' ? [(reply.transition as { type: string }).type] : []));

  it('heard: a sign-out elsewhere, or another person, ends this session and revokes it; the same person does not', async () => {
    const { engine: made, page, signal } = engine();
    const one = page();
    // Signed out already: another tab's sign-out is not announced again (it would wipe what the page shows).
    made.heard({ type: 'signed-out' });
    await delivered();
    expect(told(one)).toEqual([]);
    await signIn(one);
    made.heard({ type: 'signed-in', sub: 'alice-sub' });
    made.heard({ type: 'active' });
    await delivered();
    expect(told(one)).toEqual(['signed-in']);
    expect(h.idp.revoked()).toEqual([]);
    made.heard({ type: 'signed-in', sub: 'bob-sub' });
    const signedOut = { notice: 'transition', transition: { type: 'signed-out', reason: 'other-tab' } };
    await vi.waitFor(() => expect(one.replies).toContainEqual(signedOut));
    await revokes(sessionTokens());
    // What another tab said is not said again: no echo.
    expect(signal.signedOut).not.toHaveBeenCalled();
  });

  it('a sign-out ends the session in every other page, tells the other hosts, revokes, and answers the end-session request', async () => {
    const { page, signal } = engine();
    const [one, two] = [page(), page()];
    await signIn(one);
    const held = sessionTokens();
    const { answer } = (await one.send('signOut', { reason: 'user' })) as { answer: { endSession?: { url: string } } };
    expect(answer.endSession?.url).toMatch(new RegExp(`^${END_SESSION_URL}\\?`));
    await vi.waitFor(() =>
      expect(two.replies).toContainEqual({ notice: 'transition', transition: { type: 'signed-out', reason: 'other-tab' } }),
    );
    // The page that signed out said so itself: it is not told again.
    expect(told(one)).toEqual(['signed-in']);
    expect(signal.signedOut).toHaveBeenCalledTimes(1);
    await revokes(held);
    expect(await two.send('token', { origin: API_ORIGIN })).toMatchObject({ error: { code: 'unauthenticated' } });
  });

  it("the same person's sign-in again revokes nothing; another person's revokes the last session", async () => {
    const { page } = engine();
    const one = page();
    await signIn(one);
    await signIn(one);
    await delivered();
    expect(h.idp.revoked()).toEqual([]);
    const alices = sessionTokens().at(-1)!;
    h.idp.user = BOB;
    await signIn(one);
    await revokes([alices]);
    expect(h.idp.revoked()).not.toContain(sessionTokens().at(-1));
  });

  it('a page joining gets the origins that may receive a token and what a sign-in asks for', async () => {
    const { page } = engine();
    const { answer } = (await page().send('join', { page: 'p'.repeat(36) })) as { answer: Record<string, unknown> };
    expect(answer).toEqual({
      session: { status: 'signed-out' },
      idle: { warning: false },
      allowed: [USERINFO_URL, API_ORIGIN],
      scope: expect.stringContaining('openid'),
    });
  });

  it('renew: a token other than the current is not renewed again; end: only the current token ends the session', async () => {
    const { page } = engine();
    const one = page();
    await signIn(one);
    const requests = h.idp.requests.length;
    expect(await one.send('renew', { refused: 'an-older-token' })).toMatchObject({ answer: true });
    expect(await one.send('end', { refused: 'an-older-token' })).toMatchObject({ answer: null });
    expect(h.idp.requests).toHaveLength(requests);
    expect(told(one)).toEqual(['signed-in']);
    await one.send('end', { refused: sessionTokens()[0] });
    await vi.waitFor(() => expect(told(one)).toEqual(['signed-in', 'expired']));
  });

  it('activity is told to the other hosts only while someone is signed in', async () => {
    const { page, signal } = engine();
    const one = page();
    await one.send('active');
    expect(signal.active).not.toHaveBeenCalled();
    await signIn(one);
    await one.send('active');
    expect(signal.active).toHaveBeenCalledTimes(1);
  });

  it("a token asked for once it expired (timers stall in sleep) is renewed first; unreachable, it is 'unreachable'", async () => {
    h.idp.refreshTokens = true;
    let clock = Date.now();
    const { page } = engine(() => clock);
    const one = page();
    await signIn(one);
    const first = sessionTokens()[0];
    const { transition } = one.replies.find((reply) => reply.notice === 'transition')! as { transition: { expiresAt: number } };
    // At the very moment it expires, it is expired.
    clock = transition.expiresAt;
    const renewed = (await one.send('token', { origin: API_ORIGIN })) as { answer: { accessToken: string } };
    expect(renewed.answer.accessToken).not.toBe(first);
    expect(renewed.answer.accessToken).toBe(h.idp.issued.at(-1)!.access_token);
    clock += 3_600_000;
    h.idp.token = () => Promise.reject(new TypeError('offline'));
    expect(await one.send('token', { origin: API_ORIGIN })).toMatchObject({ error: { code: 'unreachable' } });
    expect(told(one)).toContain('offline');
  });
});

// The token vault on its own, over a fake clock and a scripted grant: when it renews, that every grant
// runs in turn through one entry, how rotation and expiry apply, what a failed grant means, and what a
// late answer does. Then through a whole instance over the fake identity service: expiry and renewal
// with refresh tokens as the person sees them, the vault in the session engine.
import * as oauth from 'oauth4webapi';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuthHarness, type Tab } from '../__fixtures__/harness';
import { API_URL, APP_URL, cutOff, idTokenClaims, json, setPageUrl, unsignedIdToken } from '../__fixtures__/fake-idp';
import { AuthError } from '../protocol/errors';
import type { ResourceParams, TokenSet } from '../protocol/steps';
import { classify } from './renewal';
import { createVault, type Grant, type VaultParts } from './tokens';

let now: number;
const tokens = (n: number, expiresIn = 100_000, subject = 'alice'): TokenSet => ({
  accessToken: `at-${n}`,
  refreshToken: `rt-${n}`,
  expiresAt: now + expiresIn,
  subject,
});
const NOTES = { resource: 'https://notes.example/', scope: 'notes.read' };

beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000_000;
});
afterEach(() => vi.useRealTimers());

function setup(grant?: Grant, more: Partial<VaultParts> = {}) {
  const endpoint = grant && vi.fn(grant);
  const parts = {
    client: { client_id: 'spa' },
    now: () => now,
    scope: 'openid notes.read',
    apis: { 'https://notes.example': NOTES },
    grant: endpoint && (async () => endpoint),
    renewed: vi.fn(),
    offline: vi.fn(),
    ended: vi.fn(),
    retrying: vi.fn(),
    ending: vi.fn(),
    ...more,
  };
  const vault = createVault(parts);
  return {
    parts,
    endpoint: endpoint!,
    vault,
    hold: (t: TokenSet, scope = 'openid notes.read', added?: Record<string, string>) => vault.hold({ tokens: t, scope, added }),
  };
}

describe('classify: what a failed grant means', () => {
  it.each([
    ['a timeout', new AuthError('timeout'), 'transient'],
    ['an unreachable server', new AuthError('unreachable'), 'transient'],
    ['an abort', new AuthError('aborted'), 'transient'],
    ['a grant that needs the person', new AuthError('interaction_required'), 'interaction'],
    ['a refused refresh token', new AuthError('invalid_grant'), 'refused'],
    ['any other token error', new AuthError('token_error'), 'failed'],
    ['an invalid answer', new AuthError('invalid_response'), 'failed'],
  ])('%s', (_name, err, failure) => {
    expect(classify(err)).toBe(failure);
  });

  it('from the token endpoint itself: invalid_scope needs the person, invalid_grant ends the session (RFC 6749 §5.2)', () => {
    const answer = (error: string) =>
      new oauth.ResponseBodyError('', { cause: { error }, response: new Response(null, { status: 400 }) });
    expect(classify(answer('invalid_scope'))).toBe('interaction');
    expect(classify(answer('invalid_grant'))).toBe('refused');
    expect(classify(answer('invalid_target'))).toBe('failed');
  });
});

describe('renewal', () => {
  it('renews before expiry, not at once, and tells the session', async () => {
    const { endpoint, vault, hold, parts } = setup(async () => tokens(2));
    hold(tokens(1));
    await vi.advanceTimersByTimeAsync(50_000);
    expect(endpoint).not.toHaveBeenCalled();
    now += 80_000;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(endpoint).toHaveBeenCalledTimes(1);
    expect(vault.tokens()?.accessToken).toBe('at-2');
    expect(parts.renewed).toHaveBeenCalledWith(vault.tokens());
  });

  it('a timer that fires early (the clock says not yet) waits again instead of renewing', async () => {
    const { endpoint, hold } = setup(async () => tokens(2));
    hold(tokens(1));
    // The timer fires, but the page's clock has not reached the renewal time (a clock change, a throttled tab).
    await vi.advanceTimersByTimeAsync(80_000);
    expect(endpoint).not.toHaveBeenCalled();
    // It waits the remaining time by the page's clock, then renews.
    now += 80_000;
    await vi.advanceTimersByTimeAsync(80_000);
    expect(endpoint).toHaveBeenCalledTimes(1);
  });

  it('concurrent renewals share one grant', async () => {
    let answer!: (t: TokenSet) => void;
    const { endpoint, vault, hold, parts } = setup(() => new Promise((resolve) => (answer = resolve)));
    hold(tokens(1));
    const both = Promise.all([vault.renew(), vault.renew()]);
    await Promise.resolve();
    answer(tokens(2, 200_000));
    expect(await both).toEqual([true, true]);
    expect(endpoint).toHaveBeenCalledTimes(1);
    expect(parts.renewed).toHaveBeenCalledTimes(1);
  });

  it('without a refresh token (or a grant), the session ends at expiry', async () => {
    const { vault, hold, parts } = setup();
    hold({ ...tokens(1, 10_000), refreshToken: undefined });
    now += 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(vault.tokens()).toBeUndefined();
    expect(parts.ended).toHaveBeenCalledWith(undefined);
  });

  it('a network failure keeps the session, offline, past expiry; retried from 2 s doubling to 60 s; renewed, it is online', async () => {
    const { endpoint, vault, hold, parts } = setup(async () => {
      throw new AuthError('unreachable');
    });
    hold(tokens(1, 10_000));
    expect(await vault.renew()).toBe(false);
    expect(vault.tokens()?.accessToken).toBe('at-1');
    expect(vault.offline()).toBe(true);
    expect(parts.offline).toHaveBeenCalledTimes(1);
    // The retries' times, far past the token's expiry: 2, 4, 8, 16, 32, 60, 60 s after each failure.
    const at: number[] = [];
    const start = now;
    endpoint.mockImplementation(async () => {
      at.push(now - start);
      throw new AuthError('timeout');
    });
    for (let s = 0; s < 182; s++) {
      now += 1_000;
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(at).toEqual([2, 6, 14, 30, 62, 122, 182].map((s) => s * 1000));
    expect(parts.offline).toHaveBeenCalledTimes(1);
    expect(parts.ended).not.toHaveBeenCalled();
    expect(vault.tokens()?.accessToken).toBe('at-1');
    endpoint.mockResolvedValue(tokens(2));
    now += 60_000;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vault.tokens()?.accessToken).toBe('at-2');
    expect(vault.offline()).toBe(false);
    expect(parts.renewed).toHaveBeenCalledTimes(1);
  });

  it('offline, the back-off restarts at 2 s after a renewal, and a refusal still ends the session with its error', async () => {
    const { endpoint, vault, hold, parts } = setup(async () => {
      throw new AuthError('unreachable');
    });
    hold(tokens(1, 10_000));
    await vault.renew();
    await vault.renew();
    endpoint.mockResolvedValueOnce(tokens(2, 10_000));
    await vault.renew();
    expect(vault.offline()).toBe(false);
    await vault.renew();
    expect(vault.offline()).toBe(true);
    endpoint.mockRejectedValue(new AuthError('invalid_grant'));
    now += 2_000;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(endpoint).toHaveBeenCalledTimes(5);
    expect(vault.tokens()).toBeUndefined();
    expect(vault.offline()).toBe(false);
    expect(parts.ended).toHaveBeenCalledWith(expect.objectContaining({ code: 'invalid_grant' }));
  });

  it('checkDue: offline, it tries at once rather than at the back-off’s end; online, only what is due', async () => {
    const { endpoint, vault, hold } = setup(async () => {
      throw new AuthError('unreachable');
    });
    hold(tokens(1));
    vault.checkDue();
    expect(endpoint).not.toHaveBeenCalled();
    await vault.renew();
    expect(endpoint).toHaveBeenCalledTimes(1);
    vault.checkDue();
    await vi.advanceTimersByTimeAsync(0);
    expect(endpoint).toHaveBeenCalledTimes(2);
  });

  it('a failure that arrives after the session ended (signed out meanwhile) changes nothing', async () => {
    let fail!: (e: unknown) => void;
    const { vault, hold, parts } = setup(() => new Promise((_, reject) => (fail = reject)));
    hold(tokens(1));
    const renewing = vault.renew();
    await Promise.resolve();
    vault.drop();
    fail(new AuthError('invalid_grant'));
    expect(await renewing).toBe(false);
    expect(parts.ended).not.toHaveBeenCalled();
  });

  it('an answer that arrives after the session ended is not taken; the grant saw its signal abort', async () => {
    let answer!: (t: TokenSet) => void;
    let signal!: AbortSignal;
    const { vault, hold, parts } = setup((_c, _p, s) => ((signal = s), new Promise((resolve) => (answer = resolve))));
    hold(tokens(1));
    const renewing = vault.renew();
    await Promise.resolve();
    vault.drop();
    expect(signal.aborted).toBe(true);
    answer(tokens(2));
    expect(await renewing).toBe(false);
    expect(vault.tokens()).toBeUndefined();
    expect(parts.renewed).not.toHaveBeenCalled();
  });

  it('a renewal whose token expires no sooner than, or even before, the current one is kept, rotated refresh token and all', async () => {
    const { endpoint, vault, hold, parts } = setup(async () => ({ ...tokens(2, 60_000), refreshToken: 'rt-rotated' }));
    hold(tokens(1));
    // A provider may cap the new token at the end of its own session.
    expect(await vault.renew()).toBe(true);
    expect(vault.tokens()).toMatchObject({ accessToken: 'at-2', refreshToken: 'rt-rotated' });
    expect(parts.renewed).toHaveBeenCalledTimes(1);
    // And the next renewal is planned before that token's end.
    endpoint.mockResolvedValue(tokens(3, 200_000));
    now += 60_000;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(vault.tokens()?.accessToken).toBe('at-3');
  });
});

describe('grants, one after another through one entry', () => {
  it('a grant for an API waits for a renewal under way, then runs with the renewed refresh token', async () => {
    let answer!: (t: TokenSet) => void;
    const { endpoint, vault, hold } = setup((current, params) =>
      params
        ? Promise.resolve({ ...tokens(9), refreshToken: current.refreshToken })
        : new Promise((resolve) => (answer = resolve)),
    );
    hold(tokens(1));
    const renewing = vault.renew();
    const token = vault.apiToken('https://notes.example');
    await Promise.resolve();
    expect(endpoint).toHaveBeenCalledTimes(1);
    answer(tokens(2, 200_000));
    expect(await renewing).toBe(true);
    expect(await token).toBe('at-9');
    expect(endpoint.mock.calls[1][0].refreshToken).toBe('rt-2');
    expect(endpoint.mock.calls[1][1]).toEqual({ resource: NOTES.resource, scope: 'notes.read' });
  });

  it("a rotated refresh token becomes the session's; the access token stays", async () => {
    const { vault, hold, parts } = setup(async () => ({ ...tokens(9), refreshToken: 'rt-new' }));
    hold(tokens(1));
    await vault.grant({ resource: NOTES.resource });
    expect(vault.tokens()).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-new' });
    expect(parts.renewed).not.toHaveBeenCalled();
  });

  it("a grant for an API whose answer carries no refresh token keeps the session's (RFC 6749 §6)", async () => {
    const { endpoint, vault, hold } = setup(async (_current, params) =>
      params ? { ...tokens(9), refreshToken: undefined } : tokens(2, 200_000),
    );
    hold(tokens(1));
    await vault.grant({ resource: NOTES.resource });
    expect(vault.tokens()).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
    await vault.renew();
    expect(endpoint.mock.calls[1][0].refreshToken).toBe('rt-1');
  });

  it('a grant with none under way asks at once, also after earlier ones settled', async () => {
    const { endpoint, vault, hold } = setup(async () => tokens(9));
    hold(tokens(1));
    await vault.grant({ resource: NOTES.resource });
    await vault.grant({ resource: NOTES.resource }).catch(() => {});
    void vault.grant({ resource: NOTES.resource });
    // The grant is loaded (one step), then asked: nothing waits for an earlier grant's settling.
    await Promise.resolve();
    expect(endpoint).toHaveBeenCalledTimes(3);
  });

  it('a grant asked while another waits its turn waits for that one too, not only for the first', async () => {
    const answers: (() => void)[] = [];
    const { endpoint, vault, hold } = setup(() => new Promise((resolve) => answers.push(() => resolve(tokens(9)))));
    hold(tokens(1));
    void vault.grant({ resource: NOTES.resource });
    void vault.grant({ resource: NOTES.resource });
    await vi.waitFor(() => expect(endpoint).toHaveBeenCalledTimes(1));
    answers[0]();
    await vi.waitFor(() => expect(endpoint).toHaveBeenCalledTimes(2));
    void vault.grant({ resource: NOTES.resource });
    await vi.advanceTimersByTimeAsync(0);
    expect(endpoint).toHaveBeenCalledTimes(2);
    answers[1]();
    await vi.waitFor(() => expect(endpoint).toHaveBeenCalledTimes(3));
  });

  it('a session that ended meanwhile: aborted, and nothing of the answer is kept', async () => {
    let finish!: () => void;
    const { vault, hold } = setup(async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return { ...tokens(9), refreshToken: 'rt-late' };
    });
    hold(tokens(1));
    const granted = vault.grant({ resource: NOTES.resource });
    await Promise.resolve();
    vault.drop();
    hold(tokens(5));
    finish();
    await expect(granted).rejects.toMatchObject({ code: 'aborted' });
    expect(vault.tokens()?.refreshToken).toBe('rt-5');
  });

  it('without a session: unauthenticated; a failed grant does not block the next renewal', async () => {
    const { endpoint, vault, hold } = setup(async () => tokens(2, 200_000));
    await expect(vault.grant()).rejects.toMatchObject({ code: 'unauthenticated' });
    hold(tokens(1));
    endpoint.mockRejectedValueOnce(new AuthError('token_error'));
    await expect(vault.grant({ resource: NOTES.resource })).rejects.toMatchObject({ code: 'token_error' });
    expect(await vault.renew()).toBe(true);
  });
});

describe('tokens for APIs', () => {
  it('are cached per origin for the session, renewed once about to expire, forgotten when the session ends', async () => {
    let n = 10;
    const { endpoint, vault, hold } = setup(async () => tokens(n++, 100_000));
    hold(tokens(1));
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    expect(endpoint).toHaveBeenCalledTimes(1);
    now += 80_000;
    expect(await vault.apiToken('https://notes.example')).toBe('at-11');
    hold(tokens(2));
    expect(await vault.apiToken('https://notes.example')).toBe('at-12');
    expect(await vault.apiToken('https://elsewhere.example')).toBeUndefined();
  });

  it('are renewed 30 s before expiry, or at four fifths of a shorter life, not sooner', async () => {
    let n = 10;
    const { endpoint, vault, hold } = setup(async () => tokens(n++, lives.shift()));
    const lives = [100_000, 3_600_000];
    hold(tokens(1));
    await vault.apiToken('https://notes.example');
    now += 80_000 - 1;
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    now += 1;
    expect(await vault.apiToken('https://notes.example')).toBe('at-11');
    now += 3_600_000 - 30_000 - 1;
    expect(await vault.apiToken('https://notes.example')).toBe('at-11');
    now += 1;
    expect(await vault.apiToken('https://notes.example')).toBe('at-12');
    expect(endpoint).toHaveBeenCalledTimes(3);
  });

  it('a failed token is not kept: the next request asks again; a late failure leaves a newer token in place', async () => {
    let fail!: (err: unknown) => void;
    let n = 10;
    const { endpoint, vault, hold } = setup(async () => tokens(n++));
    hold(tokens(1));
    endpoint.mockRejectedValueOnce(new AuthError('timeout'));
    await expect(vault.apiToken('https://notes.example')).rejects.toMatchObject({ code: 'timeout' });
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');

    hold(tokens(2));
    endpoint.mockImplementationOnce(() => new Promise((_resolve, reject) => (fail = reject)));
    const late = vault.apiToken('https://notes.example').catch((err: unknown) => err);
    await vi.waitFor(() => expect(endpoint).toHaveBeenCalledTimes(3));
    hold(tokens(3));
    // Asked for the new session before the old session's grant fails; made once that one settled.
    const next = vault.apiToken('https://notes.example');
    fail(new AuthError('timeout'));
    await late;
    expect(await next).toBe('at-11');
    expect(await vault.apiToken('https://notes.example')).toBe('at-11');
    expect(endpoint).toHaveBeenCalledTimes(4);
  });

  it('forgetting a token that is not (yet) there changes nothing', async () => {
    let finish!: () => void;
    const { endpoint, vault, hold } = setup(async () => tokens(10));
    hold(tokens(1));
    vault.forgetApiToken('https://notes.example', 'at-10');
    endpoint.mockImplementationOnce(() => new Promise((resolve) => (finish = () => resolve(tokens(10)))));
    const first = vault.apiToken('https://notes.example');
    await vi.waitFor(() => expect(endpoint).toHaveBeenCalledTimes(1));
    vault.forgetApiToken('https://notes.example', 'at-10');
    finish();
    expect(await first).toBe('at-10');
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    expect(endpoint).toHaveBeenCalledTimes(1);
  });

  it('a refresh token refused after the session ended does not end the next one', async () => {
    let refuse!: () => void;
    const { vault, hold, parts, endpoint } = setup(async () => tokens(9));
    hold(tokens(1));
    endpoint.mockImplementationOnce(
      () => new Promise((_resolve, reject) => (refuse = () => reject(new AuthError('invalid_grant')))),
    );
    const late = vault.apiToken('https://notes.example').catch((err: unknown) => err);
    await vi.waitFor(() => expect(endpoint).toHaveBeenCalledTimes(1));
    vault.drop();
    hold(tokens(2));
    refuse();
    await late;
    expect(vault.tokens()?.accessToken).toBe('at-2');
    expect(parts.ended).not.toHaveBeenCalled();
  });

  it('a refused token is forgotten, only when it is the one cached', async () => {
    let n = 10;
    const { vault, hold } = setup(async () => tokens(n++));
    hold(tokens(1));
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    vault.forgetApiToken('https://notes.example', 'at-other');
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    vault.forgetApiToken('https://notes.example', 'at-10');
    expect(await vault.apiToken('https://notes.example')).toBe('at-11');
  });

  it('ask for what a step-up added for that API, and never for what it added for another or the sign-in', async () => {
    const OTHER = { resource: 'https://other.example/', scope: 'other.read' };
    const { endpoint, vault, hold } = setup(async () => tokens(9), {
      apis: { 'https://notes.example': NOTES, 'https://other.example': OTHER },
    });
    hold(tokens(1), 'openid notes.read other.read notes.write admin', { [NOTES.resource]: 'notes.write' });
    await vault.apiToken('https://notes.example');
    await vault.apiToken('https://other.example');
    expect(endpoint.mock.calls.map((call) => call[1])).toEqual([
      { resource: NOTES.resource, scope: 'notes.read notes.write' },
      { resource: OTHER.resource, scope: 'other.read' },
    ] satisfies ResourceParams[]);
  });

  it('what a session adopted with a wider grant added is asked for at once: the older tokens are forgotten', async () => {
    let n = 10;
    const { endpoint, vault, hold } = setup(async () => tokens(n++));
    hold(tokens(1));
    expect(await vault.apiToken('https://notes.example')).toBe('at-10');
    hold(tokens(2), 'openid notes.read notes.write', { [NOTES.resource]: 'notes.write' });
    expect(await vault.apiToken('https://notes.example')).toBe('at-11');
    expect(endpoint.mock.calls[1][1]).toEqual({ resource: NOTES.resource, scope: 'notes.read notes.write' });
  });

  it('without a refresh token: interaction_required with the scope to ask and its API; invalid_scope the same', async () => {
    const { endpoint, vault, hold } = setup(async () => tokens(9));
    hold({ ...tokens(1), refreshToken: undefined });
    await expect(vault.apiToken('https://notes.example')).rejects.toMatchObject({
      code: 'interaction_required',
      scope: 'notes.read',
      resource: NOTES.resource,
    });
    expect(endpoint).not.toHaveBeenCalled();
    hold(tokens(2));
    endpoint.mockRejectedValueOnce(
      new oauth.ResponseBodyError('', { cause: { error: 'invalid_scope' }, response: new Response(null, { status: 400 }) }),
    );
    await expect(vault.apiToken('https://notes.example')).rejects.toMatchObject({ code: 'interaction_required' });
    expect(vault.tokens()?.accessToken).toBe('at-2');
  });

  it('a refused refresh token ends the session: session_expired', async () => {
    const { vault, hold, parts } = setup(async () => {
      throw new AuthError('invalid_grant');
    });
    hold(tokens(1));
    await expect(vault.apiToken('https://notes.example')).rejects.toMatchObject({ code: 'session_expired' });
    expect(vault.tokens()).toBeUndefined();
    expect(parts.ended).toHaveBeenCalledWith(expect.objectContaining({ code: 'invalid_grant' }));
  });
});

describe('the session', () => {
  it('ends here on its own, keeping what it held only to revoke it at sign-out', () => {
    const { vault, hold, parts } = setup(async () => tokens(2));
    hold(tokens(1));
    const signal = vault.signal();
    vault.end(new AuthError('session_expired'));
    expect(signal.aborted).toBe(true);
    expect(vault.tokens()).toBeUndefined();
    expect(parts.ended).toHaveBeenCalledTimes(1);
    vault.end();
    expect(parts.ended).toHaveBeenCalledTimes(1);
    expect(vault.drop()?.accessToken).toBe('at-1');
    expect(vault.drop()).toBeUndefined();
  });

  it('has the scope it was granted, else the instance’s', () => {
    const { vault, hold } = setup();
    expect(vault.scope()).toBe('openid notes.read');
    hold(tokens(1), 'openid notes.read notes.write');
    expect(vault.scope()).toBe('openid notes.read notes.write');
    vault.drop();
    expect(vault.scope()).toBe('openid notes.read');
  });

  it("binds to this page's DPoP key, or to the key of a session adopted with its own", async () => {
    const own = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const adopted = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const { vault } = setup();
    expect(vault.dpop()).toBeUndefined();
    vault.bind(own);
    const handle = vault.dpop();
    expect(handle).toBeDefined();
    expect(vault.dpop()).toBe(handle);
    expect(vault.keys()).toBe(own);
    vault.hold({ tokens: tokens(1), scope: 'openid', keys: adopted });
    expect(vault.keys()).toBe(adopted);
    expect(vault.dpop()).not.toBe(handle);
  });
});

// Time is fake (vi.useFakeTimers) so expiry is exact and nothing sleeps.
describe('through an instance', () => {
  const h = useAuthHarness();

  const refreshRequests = () => h.idp.tokenRequests('refresh_token');

  /** Sign-in at a fake "now", with the token lifetime the identity service announces. */
  async function signInAt(expiresIn: number | undefined, { refresh = false } = {}) {
    vi.useFakeTimers();
    h.idp.expiresIn = expiresIn;
    h.idp.refreshTokens = refresh;
    const t0 = Date.now();
    const tab = await h.signIn();
    return { tab, t0 };
  }

  async function expectUnauthenticatedWithoutRequest(tab: Tab) {
    const before = h.idp.requests.length;
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(h.idp.requests.length).toBe(before);
  }

  describe('expiry without a refresh token', () => {
    it('stays signed in until expires_in runs out, then becomes expired', async () => {
      const { tab, t0 } = await signInAt(300);
      setPageUrl(`${APP_URL}#/api`);
      expect(tab.state.expiresAt).toBe(t0 + 300_000);
      await vi.advanceTimersByTimeAsync(299_999);
      expect(tab.state.status).toBe('signed-in');
      await vi.advanceTimersByTimeAsync(1);
      expect(tab.state).toMatchObject({ status: 'expired', user: null, error: { code: 'session_expired' } });
      expect(refreshRequests()).toHaveLength(0);
      await expectUnauthenticatedWithoutRequest(tab);
    });

    it.each([
      ['missing', undefined, 3600],
      ['absurdly large (beyond the 2^31-1 ms timer limit)', 1e10, 86_400],
      ['short', 5, 5],
    ])('expires_in %s: the session lasts %ss, never longer than the server said', async (_name, expiresIn, seconds) => {
      const { tab, t0 } = await signInAt(expiresIn);
      expect(tab.state.expiresAt).toBe(t0 + seconds * 1000);
      await vi.advanceTimersByTimeAsync(seconds * 1000 - 1);
      expect(tab.state.status).toBe('signed-in');
      await vi.advanceTimersByTimeAsync(1);
      expect(tab.state.status).toBe('expired');
    });

    it('expires_in 0 without a refresh token: expired at once, nothing sent', async () => {
      const { tab } = await signInAt(0);
      const requests = h.idp.requests.length;
      await vi.advanceTimersByTimeAsync(0);
      expect(tab.state.status).toBe('expired');
      expect(h.idp.requests.length).toBe(requests);
    });

    it.each([0, 1])('expires_in %i with a refresh token: renewals, but never a tight loop', async (expiresIn) => {
      const { tab } = await signInAt(expiresIn, { refresh: true });
      await vi.advanceTimersByTimeAsync(10_000);
      const renewals = refreshRequests().length;
      expect(renewals).toBeGreaterThanOrEqual(1);
      expect(renewals).toBeLessThanOrEqual(10);
      expect(tab.state.status).not.toBe('error');
    });

    it.each([
      ['online', () => window.dispatchEvent(new Event('online'))],
      ['visibilitychange', () => document.dispatchEvent(new Event('visibilitychange'))],
      ['pageshow', () => window.dispatchEvent(new Event('pageshow'))],
    ])('re-checks expiry on %s after the timers stalled (laptop asleep)', async (_name, wake) => {
      const { tab, t0 } = await signInAt(300);
      // The clock jumps without any timer firing, as after a sleep.
      vi.setSystemTime(t0 + 301_000);
      expect(tab.state.status).toBe('signed-in');
      wake();
      await vi.waitFor(() => expect(tab.state.status).toBe('expired'));
    });
  });

  describe('refresh tokens', () => {
    it('renews before expiry without the person noticing, and uses the new access token', async () => {
      const { tab, t0 } = await signInAt(300, { refresh: true });
      const firstAccessToken = h.idp.issued[0].access_token;
      await vi.advanceTimersByTimeAsync(150_000);
      expect(refreshRequests()).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(149_999);
      expect(refreshRequests()).toHaveLength(1);
      const [request] = refreshRequests();
      expect(request.form.get('client_id')).toBe(h.options.clientId);
      expect(request.form.has('client_secret')).toBe(false);
      expect(request.headers.has('authorization')).toBe(false);
      expect(tab.state.status).toBe('signed-in');
      expect(tab.state.expiresAt).toBeGreaterThan(t0 + 300_000);

      h.idp.validAccessTokens.delete(firstAccessToken as string);
      const response = await tab.auth.fetch(API_URL);
      expect(response.status).toBe(200);
      expect(h.idp.to(API_URL)[0].headers.get('authorization')).toBe(`Bearer ${h.idp.issued[1].access_token}`);
    });

    it('rotates: the new refresh token is used next time, the old one never again', async () => {
      const { tab } = await signInAt(300, { refresh: true });
      const rt1 = h.idp.issued[0].refresh_token;
      await vi.advanceTimersByTimeAsync(300_000);
      const rt2 = h.idp.issued[1].refresh_token;
      await vi.advanceTimersByTimeAsync(300_000);
      const rt3 = h.idp.issued[2]?.refresh_token;
      expect(new Set([rt1, rt2, rt3]).size).toBe(3);
      expect(refreshRequests().map((r) => r.form.get('refresh_token'))).toEqual([rt1, rt2]);
      expect(tab.state.status).toBe('signed-in');
    });

    it('keeps the old refresh token when the answer carries no new one', async () => {
      const { tab } = await signInAt(300, { refresh: true });
      const rt1 = h.idp.issued[0].refresh_token as string;
      h.idp.token = ({ form }) =>
        json({ access_token: `at-x-${form.get('refresh_token')}`, token_type: 'Bearer', expires_in: 300 });
      await vi.advanceTimersByTimeAsync(600_000);
      expect(refreshRequests().map((r) => r.form.get('refresh_token'))).toEqual([rt1, rt1]);
      expect(tab.state.status).toBe('signed-in');
    });

    it('invalid_grant on refresh ends the session as "expired"', async () => {
      const { tab } = await signInAt(300, { refresh: true });
      h.idp.currentRefreshToken = 'revoked-by-the-server';
      await vi.advanceTimersByTimeAsync(300_000);
      expect(refreshRequests()).toHaveLength(1);
      expect(tab.state).toMatchObject({
        status: 'expired',
        user: null,
        error: { code: 'session_expired', oauthError: 'invalid_grant' },
      });
      await expectUnauthenticatedWithoutRequest(tab);
      // No retry loop afterwards.
      await vi.advanceTimersByTimeAsync(24 * 3600_000);
      expect(refreshRequests()).toHaveLength(1);
    });

    it('retries a renewal that failed on the network while the token is still valid', async () => {
      const { tab, t0 } = await signInAt(300, { refresh: true });
      let failures = 1;
      h.idp.token = (request, standard) =>
        failures-- > 0 ? Promise.reject(new TypeError('Failed to fetch')) : standard(request);
      await vi.advanceTimersByTimeAsync(300_000 - 1);
      expect(refreshRequests().length).toBeGreaterThanOrEqual(1);
      expect(tab.state.status).toBe('signed-in');
      expect(tab.state.expiresAt).toBeGreaterThan(t0 + 300_000);
    });

    it('a renewal whose answer is cut off after its headers keeps the session, offline, and is retried', async () => {
      const { tab, t0 } = await signInAt(300, { refresh: true });
      let failures = 1;
      h.idp.token = (request, standard) => (failures-- > 0 ? cutOff() : standard(request));
      await vi.advanceTimersByTimeAsync(300_000 - 60_000);
      expect(refreshRequests()).toHaveLength(1);
      expect(tab.state).toMatchObject({ status: 'signed-in', offline: true, user: { sub: 'alice-sub' } });
      await vi.advanceTimersByTimeAsync(2_000);
      expect(tab.state).toMatchObject({ status: 'signed-in', offline: false });
      expect(tab.state.expiresAt).toBeGreaterThan(t0 + 300_000);
    });

    it('a renewed ID token for another subject ends the session', async () => {
      const { tab } = await signInAt(300, { refresh: true });
      h.idp.token = () =>
        json({
          access_token: 'at-mallory',
          token_type: 'Bearer',
          expires_in: 300,
          id_token: unsignedIdToken(idTokenClaims('mallory-sub', undefined)),
        });
      await vi.advanceTimersByTimeAsync(300_000);
      expect(tab.state.status).toBe('expired');
      expect(tab.state.user).toBeNull();
    });
  });
});

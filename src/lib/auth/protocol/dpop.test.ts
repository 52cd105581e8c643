// DPoP (RFC 9449), opt-in: tokens bound to a non-extractable key of the session, which lives in the
// session engine and is cloned to each page's client for the proofs of its requests.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { useAuthHarness, type Harness } from '../__fixtures__/harness';
import { API_URL, APP_URL, TOKEN_URL, USERINFO_URL, allStorage, json, NAMES } from '../__fixtures__/fake-idp';

const proofOf = (request: { headers: Headers }) => {
  const proof = request.headers.get('dpop');
  if (!proof) throw new Error('no DPoP proof');
  return { header: decodeProtectedHeader(proof), claims: decodeJwt(proof) };
};

/** The key pairs the engine's token answers carried to the pages opened from now on. */
function keysPagesReceived(h: Harness): CryptoKeyPair[] {
  const keys: CryptoKeyPair[] = [];
  const browser = h.port;
  h.port = () => {
    const port = browser();
    return {
      ...port,
      sharedWorker(name) {
        const worker = port.sharedWorker(name);
        worker?.port.addEventListener('message', ({ data }) => data.answer?.keys && keys.push(data.answer.keys));
        return worker;
      },
    };
  };
  onTestFinished(() => void (h.port = browser));
  return keys;
}

describe('with dpop on', () => {
  const h = useAuthHarness({ dpop: true });

  it('binds the tokens: a proof with the code exchange, userinfo and API calls, token type DPoP', async () => {
    h.idp.dpop = true;
    const tab = await h.signIn();
    const [exchange] = h.idp.tokenRequests('authorization_code');
    const [userinfo] = h.idp.to(USERINFO_URL);
    expect(proofOf(exchange)).toMatchObject({
      header: { typ: 'dpop+jwt', alg: 'ES256' },
      claims: { htm: 'POST', htu: TOKEN_URL },
    });
    expect(proofOf(exchange).claims.ath).toBeUndefined();
    expect(proofOf(userinfo).claims).toMatchObject({ htm: 'GET', htu: USERINFO_URL });
    expect(userinfo.headers.get('authorization')).toBe(`DPoP ${h.idp.issued[0].access_token}`);
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    const api = h.idp.to(API_URL)[0];
    expect(proofOf(api).claims).toMatchObject({ htm: 'GET', htu: API_URL });
    expect(typeof proofOf(api).claims.ath).toBe('string');
    // One key for the session: the same public key in every proof, and no private part in it.
    const keys = [exchange, userinfo, api].map((r) => JSON.stringify(proofOf(r).header.jwk));
    expect(new Set(keys).size).toBe(1);
    expect(proofOf(api).header.jwk).not.toHaveProperty('d');
    expect(allStorage()).toBe(`${NAMES.key('hint')}=1`);
  });

  it("the session's key: another tab's proofs carry it, and the private key a page gets cannot be exported", async () => {
    h.idp.dpop = true;
    const keys = keysPagesReceived(h);
    await h.signIn();
    const second = await h.loadAt(APP_URL);
    expect((await second.auth.fetch(API_URL)).status).toBe(200);
    const [exchange] = h.idp.tokenRequests('authorization_code');
    const [api] = h.idp.to(API_URL);
    expect(proofOf(api).header.jwk).toEqual(proofOf(exchange).header.jwk);
    expect(keys.length).toBeGreaterThan(0);
    for (const pair of keys) expect([pair.privateKey.extractable, pair.privateKey.type]).toEqual([false, 'private']);
  });

  it('a proof goes with every refresh, and the renewed token is bound too', async () => {
    vi.useFakeTimers();
    h.idp.dpop = true;
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const tab = await h.signIn();
    await vi.advanceTimersByTimeAsync(60_000);
    // Signing is real WebCrypto work, outside the fake clock: wait for its outcome.
    await vi.waitFor(() => expect(h.idp.issued).toHaveLength(2));
    const [refresh] = h.idp.tokenRequests('refresh_token');
    expect(proofOf(refresh).claims).toMatchObject({ htm: 'POST', htu: TOKEN_URL });
    expect(tab.state.status).toBe('signed-in');
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
  });

  it('retries once with the nonce the token endpoint asks for (use_dpop_nonce)', async () => {
    h.idp.dpop = true;
    h.idp.dpopNonce = 'n-1';
    const tab = await h.signIn();
    const exchanges = h.idp.tokenRequests('authorization_code');
    expect(exchanges).toHaveLength(2);
    expect(proofOf(exchanges[0]).claims.nonce).toBeUndefined();
    expect(proofOf(exchanges[1]).claims.nonce).toBe('n-1');
    expect(tab.state.status).toBe('signed-in');
  });

  it('retries once with the nonce a resource asks for, and not forever', async () => {
    h.idp.dpop = true;
    const tab = await h.signIn();
    h.idp.dpopNonce = 'n-2';
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    expect(h.idp.to(API_URL).map((r) => proofOf(r).claims.nonce)).toEqual([undefined, 'n-2']);
    h.idp.api = () =>
      new Response(null, { status: 401, headers: { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'n-3' } });
    // The second use_dpop_nonce is the resource's answer, not a refused token: the session stays.
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({
      code: 'http_error',
      oauthError: 'use_dpop_nonce',
      status: 401,
    });
    expect(h.idp.to(API_URL)).toHaveLength(4);
    expect(tab.state.status).toBe('signed-in');
  });

  it('refuses an unbound (Bearer) token from the token endpoint', async () => {
    h.idp.dpop = false;
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
    expect(h.idp.to(USERINFO_URL)).toHaveLength(0);
  });

  it('refuses a refresh that comes back unbound', async () => {
    vi.useFakeTimers();
    h.idp.dpop = true;
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 60;
    const tab = await h.signIn();
    h.idp.token = (_request, standard) =>
      Promise.resolve(standard(_request)).then(async (r) => json({ ...(await r.json()), token_type: 'Bearer' }));
    await vi.advanceTimersByTimeAsync(60_000);
    await vi.waitFor(() => expect(tab.state).toMatchObject({ status: 'expired', error: { code: 'session_expired' } }));
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
  });
});

describe('with dpop off', () => {
  const h = useAuthHarness();

  it('sends no proof and refuses a DPoP-bound token it did not ask for', async () => {
    h.idp.token = (request, standard) =>
      Promise.resolve(standard(request)).then(async (r) => json({ ...(await r.json()), token_type: 'DPoP' }));
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(h.idp.tokenRequests()[0].headers.get('dpop')).toBeNull();
    expect(tab.state.error?.code).toBe('invalid_response');
  });
});

describe('with dpop on and sessions renewed in a hidden frame (no refresh token)', () => {
  const h = useAuthHarness({ dpop: true, hiddenFrame: true });

  it("a frame's renewal proves the session's key: its exchange and the API calls after it", async () => {
    vi.useFakeTimers();
    h.idp.dpop = true;
    h.idp.expiresIn = 60;
    const tab = await h.signIn();
    const expiresAt = tab.state.expiresAt!;
    // A frame renews at half a 60-second life.
    await vi.advanceTimersByTimeAsync(30_000);
    await vi.waitFor(() => expect(tab.state.expiresAt).toBeGreaterThan(expiresAt));
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    const [signIn, renewal] = h.idp.tokenRequests('authorization_code');
    expect(h.frames).toHaveLength(1);
    expect(proofOf(renewal).header.jwk).toEqual(proofOf(signIn).header.jwk);
    expect(proofOf(h.idp.to(API_URL)[0]).header.jwk).toEqual(proofOf(signIn).header.jwk);
  });

  it('a lone reload restored in a frame binds the new tokens to a key of the new engine', async () => {
    h.idp.dpop = true;
    await h.signIn();
    await h.closeTabs();
    h.endWorkers();
    h.reloaded = true;
    const tab = await h.loadAt(APP_URL);
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-in'));
    expect(h.frames).toHaveLength(1);
    expect(h.idp.issued.at(-1)!.token_type).toBe('DPoP');
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    const [signIn, restore] = h.idp.tokenRequests('authorization_code');
    expect(proofOf(restore).claims).toMatchObject({ htm: 'POST', htu: TOKEN_URL });
    expect(proofOf(h.idp.to(API_URL)[0]).header.jwk).toEqual(proofOf(restore).header.jwk);
    // The old engine's key went with it: nothing of it survived the reload.
    expect(proofOf(restore).header.jwk).not.toEqual(proofOf(signIn).header.jwk);
  });
});

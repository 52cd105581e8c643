// Issue 9: with "dpop": true the tokens are bound to a key of the page (RFC 9449). They work from the
// app, and a copy of the access token is useless elsewhere: not as Bearer, not with another key.
import { describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import type { RecordedRequest } from '../support/browser';
import { tokenRequests, tokenResponses } from '../support/flows';
import { foreignProof, getWith, refreshGrant } from '../support/node-client';
import { readClaims, signIn, useEnv, type Env, type Session } from './helpers';

/** Signs in, shows the profile and the API page; returns the last access token the provider issued. */
async function signInAndCallApi(env: Env): Promise<{ session: Session; tokens: Record<string, unknown> }> {
  const session = await env.open();
  const { page, log } = session;
  await signIn(session, env.stack.app.url, '#/signin?returnTo=/profile');
  expect((await readClaims(page)).preferred_username).toBe('alice');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API', exact: true }).click();
  await page.getByTestId('api-result').waitFor();
  expect(await page.getByTestId('api-result').textContent()).toContain('Hello, Alice Liddell!');
  await log.settle();
  const tokens = tokenResponses(log).at(-1);
  expect(tokens?.access_token, 'the token response was captured').toEqual(expect.any(String));
  expect(String(tokens?.token_type).toLowerCase()).toBe('dpop');
  return { session, tokens: tokens! };
}

/** The claims of the DPoP proof a request carried. */
const proofOf = (entry: RecordedRequest) => decodeJwt(entry.headers.dpop ?? '');

describe('DPoP', () => {
  const env = useEnv({ extraConfig: { dpop: true } });

  it('the bound token works from the app and is refused when replayed as Bearer or with a proof of another key', async () => {
    const { session, tokens } = await signInAndCallApi(env);
    const { log } = session;
    const { idp } = env.stack;
    const accessToken = tokens.access_token as string;
    const greeting = idp.apiUrl + '/api/greeting';

    const apiCall = log.matching(greeting, 'GET').find((e) => e.status === 200);
    expect(apiCall?.headers.authorization).toBe(`DPoP ${accessToken}`);
    expect(proofOf(apiCall!)).toMatchObject({ htm: 'GET', htu: greeting });
    for (const e of [...tokenRequests(log), ...log.matching('/connect/userinfo', 'GET')]) {
      expect(e.headers.dpop, `${e.method} ${e.url} carries a proof`).toBeTruthy();
    }

    const asBearer = await getWith(greeting, { Authorization: `Bearer ${accessToken}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);

    const otherKey = await getWith(greeting, {
      Authorization: `DPoP ${accessToken}`,
      DPoP: await foreignProof('GET', greeting, accessToken),
    });
    expect(otherKey.status).toBe(401);
    // Refused for the key alone: the proof is otherwise well formed (method, URL, time, token hash).
    expect(otherKey.headers.get('www-authenticate')).toMatch(
      /^DPoP error="invalid_dpop_proof", error_description="[^"]*does not match the token"/,
    );

    // The refresh token is bound too: without the page's key the provider does not renew it.
    const refresh = await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, tokens.refresh_token as string);
    expect(refresh.status, JSON.stringify(refresh.body)).toBe(400);
  });
});

describe('DPoP with nonces required by the provider and the API', () => {
  const env = useEnv({ dpopNonce: true, extraConfig: { dpop: true } });

  it('sign-in and the API call still work: the client retries once with the server nonce', async () => {
    const { session } = await signInAndCallApi(env);
    const { log } = session;
    const { idp } = env.stack;

    // Each server asked for a nonce once, and the proof of the request it then accepted carried it.
    for (const [name, entries] of [
      ['token', tokenRequests(log, 'authorization_code')],
      ['userinfo', log.matching('/connect/userinfo', 'GET')],
      ['API', log.matching(idp.apiUrl + '/api/greeting', 'GET')],
    ] as const) {
      const statuses = entries.map((e) => e.status);
      expect(statuses, name).toEqual([expect.any(Number), expect.any(Number)]);
      expect(statuses[0], `${name}: first answer asks for a nonce`).toBeGreaterThanOrEqual(400);
      expect(statuses[1], `${name}: the retry is accepted`).toBe(200);
      expect(proofOf(entries[0]).nonce, name).toBeUndefined();
      expect(proofOf(entries[1]).nonce, name).toEqual(expect.any(String));
    }
  });
});

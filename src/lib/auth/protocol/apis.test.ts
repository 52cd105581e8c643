// A token per API (RFC 8707): an origin of `apis` gets a token the session engine obtains for its
// resource with the refresh token, caches per origin for every tab, and renews on its own; every other
// origin keeps the sign-in token.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import type { AuthOptions } from '../options';
import {
  API_ORIGIN,
  API_URL,
  APP_URL,
  OTHER_API_ORIGIN,
  OTHER_API_URL,
  USERINFO_URL,
  challenge,
  challengeHeader,
  deferred,
  json,
  testOptions,
  type OptionsOverrides,
} from '../__fixtures__/fake-idp';
import { apiParams, apisByOrigin, type ApiOptions } from './apis';
import { AuthError, stepUpFor } from './errors';

const NOTES = { resource: 'https://notes.example/', scope: 'notes.read', stepUpScopes: 'notes.write' };
const OTHER = { resource: 'https://other.example/', scope: 'other.read' };
const withApis = (apis: Record<string, ApiOptions>, overrides: OptionsOverrides = {}) => ({ ...testOptions(overrides), apis });

const h = useAuthHarness();

/** The access token an API request carried. */
const bearer = (request: { headers: Headers } | undefined) => request?.headers.get('authorization')?.replace(/^Bearer /, '');

describe('the authorization request (RFC 8707 §2.1)', () => {
  it("asks for every API's resource, as repeated parameters, and adds their scopes", async () => {
    const url = new URL(await h.startSignIn({ options: withApis({ [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER }) }));
    expect(url.searchParams.getAll('resource')).toEqual([NOTES.resource, OTHER.resource]);
    expect(url.searchParams.get('scope')).toBe(`${h.options.scope} notes.read other.read`);
  });

  it('an API without a scope of its own asks for its resource and adds nothing to the scope', async () => {
    const url = new URL(await h.startSignIn({ options: withApis({ [API_ORIGIN]: { resource: NOTES.resource } }) }));
    expect(url.searchParams.getAll('resource')).toEqual([NOTES.resource]);
    expect(url.searchParams.get('scope')).toBe(h.options.scope);
  });

  it('without apis: no resource parameter and the scope as configured', async () => {
    const url = new URL(await h.startSignIn());
    expect(url.searchParams.has('resource')).toBe(false);
    expect(url.searchParams.get('scope')).toBe(h.options.scope);
  });
});

describe('requests to an API of apis', () => {
  it('carry a token for its resource, from one refresh grant with resource and scope (RFC 8707 §2.2), cached', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    const signInToken = h.idp.issued[0].access_token;
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    expect((await tab.auth.fetch(`${API_URL}?again`)).status).toBe(200);
    const grants = h.idp.tokenRequests('refresh_token');
    expect(grants).toHaveLength(1);
    expect([grants[0].form.get('resource'), grants[0].form.get('scope')]).toEqual([NOTES.resource, NOTES.scope]);
    const apiToken = h.idp.issued[1].access_token as string;
    expect(h.idp.resourceOf.get(apiToken)).toBe(NOTES.resource);
    expect(h.idp.requests.filter((r) => r.url.startsWith(API_ORIGIN)).map(bearer)).toEqual([apiToken, apiToken]);
    expect(apiToken).not.toBe(signInToken);
  });

  it('the userinfo endpoint and origins without an entry keep the sign-in token', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [OTHER_API_ORIGIN]: OTHER }, { apiOrigins: [API_ORIGIN] }) });
    const signInToken = h.idp.issued[0].access_token;
    await tab.auth.fetch(API_URL);
    await tab.auth.fetch(USERINFO_URL);
    expect(bearer(h.idp.to(API_URL)[0])).toBe(signInToken);
    expect(bearer(h.idp.to(USERINFO_URL).at(-1))).toBe(signInToken);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
  });

  it("each API gets its own token, which never reaches the other's origin", async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER }) });
    await tab.auth.fetch(API_URL);
    await tab.auth.fetch(OTHER_API_URL);
    await tab.auth.fetch(API_URL);
    const notesToken = bearer(h.idp.to(API_URL)[0])!;
    const otherToken = bearer(h.idp.to(OTHER_API_URL)[0])!;
    expect(h.idp.resourceOf.get(notesToken)).toBe(NOTES.resource);
    expect(h.idp.resourceOf.get(otherToken)).toBe(OTHER.resource);
    expect(h.idp.to(API_URL).map(bearer)).toEqual([notesToken, notesToken]);
  });

  it.each([`${OTHER_API_ORIGIN}/`, `${OTHER_API_ORIGIN}/some/path`, OTHER_API_ORIGIN.toUpperCase()])(
    'a key written as %s names the origin, and allows it (no apiOrigins entry needed)',
    async (key) => {
      h.idp.refreshTokens = true;
      const tab = await h.signIn({ options: withApis({ [key]: NOTES }) });
      expect((await tab.auth.fetch(OTHER_API_URL)).status).toBe(200);
      expect(h.idp.tokenRequests('refresh_token')[0].form.get('resource')).toBe(NOTES.resource);
    },
  );

  it('concurrent first requests share one grant', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    const responses = await Promise.all([1, 2, 3].map(() => tab.auth.fetch(API_URL)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
  });

  it("two tabs' requests to an API cause one token request for it: the session's one engine holds the API's token", async () => {
    h.idp.refreshTokens = true;
    const options = withApis({ [API_ORIGIN]: NOTES });
    const tabs = [await h.signIn({ options }), await h.loadAt(APP_URL, options)];
    expect(tabs[1].state.status).toBe('signed-in');
    const responses = await Promise.all(tabs.map((tab) => tab.auth.fetch(API_URL)));
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    // Later requests of either tab get the same cached token.
    expect((await tabs[1].auth.fetch(API_URL)).status).toBe(200);
    expect((await tabs[0].auth.fetch(API_URL)).status).toBe(200);
    const grants = h.idp.tokenRequests('refresh_token');
    expect(grants.map((grant) => grant.form.get('resource'))).toEqual([NOTES.resource]);
    const apiToken = h.idp.issued[1].access_token as string;
    expect(h.idp.to(API_URL).map(bearer)).toEqual(Array(4).fill(apiToken));
  });

  it('a rotated refresh token becomes the session’s: the sign-in token still renews after', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    await tab.auth.fetch(API_URL);
    // The fake rotates on every use: only the refresh token of the API grant is accepted now.
    h.idp.validAccessTokens.delete(h.idp.issued[0].access_token as string);
    expect((await tab.auth.fetch(USERINFO_URL)).status).toBe(200);
    const [apiGrant, renewal] = h.idp.tokenRequests('refresh_token');
    expect(renewal.form.get('refresh_token')).toBe(h.idp.issued[1].refresh_token);
    expect(renewal.form.has('resource')).toBe(false);
    expect(apiGrant.form.get('refresh_token')).toBe(h.idp.issued[0].refresh_token);
    expect(tab.state.status).toBe('signed-in');
  });

  it('a token about to expire is replaced before it is sent', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    await tab.auth.fetch(API_URL);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (h.idp.expiresIn! - 10) * 1000);
    await tab.auth.fetch(API_URL);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(2);
    const [first, second] = h.idp.to(API_URL).map(bearer);
    expect(second).not.toBe(first);
  });

  it('invalid_token from the API: one new token and one replay; the sign-in token is not renewed', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    await tab.auth.fetch(API_URL);
    h.idp.validAccessTokens.delete(bearer(h.idp.to(API_URL)[0])!);
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    const grants = h.idp.tokenRequests('refresh_token');
    expect(grants.map((g) => g.form.get('resource'))).toEqual([NOTES.resource, NOTES.resource]);
    const sent = h.idp.to(API_URL).map(bearer);
    expect(sent).toHaveLength(3);
    expect(sent[2]).not.toBe(sent[1]);
  });

  it('invalid_token again after the replay: an http_error, no loop, and the session stays', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    h.idp.api = () => challenge(401, 'invalid_token');
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'http_error', oauthError: 'invalid_token', status: 401 });
    expect(h.idp.to(API_URL)).toHaveLength(2);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(2);
    expect(tab.state.status).toBe('signed-in');
  });

  it('without a refresh token: interaction_required with the scope to ask, no request and no navigation', async () => {
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    const navigations = h.assign.mock.calls.length;
    const failure = await tab.auth.fetch(API_URL).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'interaction_required', scope: NOTES.scope });
    expect(h.idp.to(API_URL)).toHaveLength(0);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(tab.state.status).toBe('signed-in');
  });

  it('a grant refused with invalid_scope: interaction_required, the session stays', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    h.idp.token = () => json({ error: 'invalid_scope' }, 400);
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'interaction_required', scope: NOTES.scope });
    expect(tab.state.status).toBe('signed-in');
  });

  it('a refresh token refused (invalid_grant): the session has ended', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    h.idp.currentRefreshToken = 'revoked';
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(tab.state.status).toBe('expired');
  });

  it("insufficient_scope within the API's scope and stepUpScopes: the typed error with its scope and the API's resource", async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    h.idp.api = () => challengeHeader(403, 'Bearer error="insufficient_scope", scope="notes.read notes.write"');
    const error = (await tab.auth.fetch(API_URL).catch((err: unknown) => err)) as AuthError;
    expect(error).toMatchObject({ code: 'insufficient_scope', scope: 'notes.read notes.write', resource: NOTES.resource });
    expect(stepUpFor(error)).toEqual({ scope: 'notes.read notes.write', resource: NOTES.resource });
  });

  it.each([
    ['a scope outside its lists', 'admin'],
    ['one token too many', 'notes.write admin'],
    ["another API's scope", 'other.read'],
    ['the sign-in scope', 'openid'],
  ])('insufficient_scope naming %s: scope_not_allowed, with no scope to ask for and no token request', async (_name, scope) => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER }) });
    await tab.auth.fetch(API_URL);
    h.idp.api = () => challengeHeader(403, `Bearer error="insufficient_scope", scope="${scope}"`);
    const tokens = h.idp.tokenRequests().length;
    const navigations = h.assign.mock.calls.length;
    const error = (await tab.auth.fetch(API_URL).catch((err: unknown) => err)) as AuthError;
    expect(error).toBeInstanceOf(AuthError);
    expect(error.toJSON()).toEqual({ code: 'scope_not_allowed', oauthError: 'insufficient_scope', status: 403 });
    expect(stepUpFor(error)).toBeUndefined();
    expect(h.idp.tokenRequests()).toHaveLength(tokens);
    expect(h.assign.mock.calls).toHaveLength(navigations);
    expect(tab.state.status).toBe('signed-in');
  });

  it('interaction_required names the API: Grant access records what it asks for that API', async () => {
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    const error = (await tab.auth.fetch(API_URL).catch((err: unknown) => err)) as AuthError;
    expect(error).toMatchObject({ code: 'interaction_required', scope: 'notes.read', resource: NOTES.resource });
    expect(stepUpFor(error)).toEqual({ scope: 'notes.read', resource: NOTES.resource });
  });

  it('sign-out during a grant: its late answer is dropped (aborted) and nothing is sent', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    const release = deferred<void>();
    h.idp.token = async (request, standard) => (await release.promise, standard(request));
    const pending = tab.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
    tab.auth.signOut();
    release.resolve();
    expect(await pending).toMatchObject({ code: 'aborted' });
    expect(h.idp.to(API_URL)).toHaveLength(0);
  });

  /** Signs in with `options`, steps up with `ask` and comes back: the tab after the callback. */
  async function steppedUp(options: AuthOptions, ask: { scope: string; resource?: string }) {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options });
    await tab.auth.signIn(ask);
    await h.close(tab);
    return h.completeCallback(h.idp.approve(h.lastNavigation()), options);
  }
  const lastGrantFor = (resource: string) =>
    h.idp
      .tokenRequests('refresh_token')
      .filter((r) => r.form.get('resource') === resource)
      .at(-1)?.form;

  it("after a step-up for an API, that API's token is asked with the added scope, and no other API's", async () => {
    const options = withApis({ [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER });
    const back = await steppedUp(options, { scope: 'notes.write', resource: NOTES.resource });
    const asked = new URL(h.lastNavigation()).searchParams;
    expect(asked.getAll('resource')).toEqual([NOTES.resource, OTHER.resource]);
    expect(asked.get('scope')!.split(' ')).toContain('notes.write');
    await back.auth.fetch(API_URL);
    await back.auth.fetch(OTHER_API_URL);
    expect(lastGrantFor(NOTES.resource)?.get('scope')).toBe('notes.read notes.write');
    expect(lastGrantFor(OTHER.resource)?.get('scope')).toBe('other.read');
  });

  it("a step-up without an API widens the sign-in token's scope only: no API's token asks for it", async () => {
    const options = withApis({ [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER });
    const back = await steppedUp(options, { scope: 'service.admin' });
    expect(new URL(h.lastNavigation()).searchParams.get('scope')!.split(' ')).toContain('service.admin');
    await back.auth.fetch(API_URL);
    await back.auth.fetch(OTHER_API_URL);
    expect(lastGrantFor(NOTES.resource)?.get('scope')).toBe('notes.read');
    expect(lastGrantFor(OTHER.resource)?.get('scope')).toBe('other.read');
  });

  it('a second step-up, for another API, keeps what the first added for the first (the record crosses the redirect)', async () => {
    const options = withApis({ [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER });
    const first = await steppedUp(options, { scope: 'notes.write', resource: NOTES.resource });
    await first.auth.signIn({ scope: 'other.write', resource: OTHER.resource });
    await h.close(first);
    const back = await h.completeCallback(h.idp.approve(h.lastNavigation()), options);
    await back.auth.fetch(API_URL);
    await back.auth.fetch(OTHER_API_URL);
    expect(lastGrantFor(NOTES.resource)?.get('scope')).toBe('notes.read notes.write');
    expect(lastGrantFor(OTHER.resource)?.get('scope')).toBe('other.read other.write');
  });

  it('signIn with a resource that is no API of the instance is a TypeError, without a redirect', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options: withApis({ [API_ORIGIN]: NOTES }) });
    const navigations = h.assign.mock.calls.length;
    await expect(tab.auth.signIn({ scope: 'notes.write', resource: 'https://evil.example/' })).rejects.toBeInstanceOf(TypeError);
    expect(h.assign.mock.calls).toHaveLength(navigations);
  });
});

describe('helpers', () => {
  it('apisByOrigin keys each entry by its bare origin', () => {
    expect([...apisByOrigin({ 'https://API.example.com:443/x': NOTES }).keys()]).toEqual(['https://api.example.com']);
  });

  it("apiParams: the API's resource, with its own scope plus what step-ups added for it, each once; never another API's", () => {
    const added = { [NOTES.resource]: 'notes.read notes.write', [OTHER.resource]: 'other.write' };
    expect(apiParams(NOTES, added)).toEqual({ resource: NOTES.resource, scope: 'notes.read notes.write' });
    expect(apiParams(NOTES)).toEqual({ resource: NOTES.resource, scope: 'notes.read' });
    expect(apiParams({ resource: 'r' })).toEqual({ resource: 'r' });
    expect(apiParams({ resource: 'r' }, added)).toEqual({ resource: 'r' });
  });
});

// Step-up: signIn({ scope, resource, acr_values, max_age }) asks for the session's scope plus the new one
// (recorded for the API of `resource`) and the sign-in a resource demands; after the callback the answer is
// checked, and a shortfall is step_up_failed.
import { describe, expect, it } from 'vitest';
import { useAuthHarness, type Tab } from '../__fixtures__/harness';
import {
  ALICE,
  API_ORIGIN,
  API_URL,
  APP_URL,
  BOB,
  FakeBroadcastChannel,
  NAMES,
  OTHER_API_ORIGIN,
} from '../__fixtures__/fake-idp';
import { AuthError } from './errors';
import { MAX_AGE_LIMIT_S } from './scope';
import { stepUpRequest } from './stepup';

const h = useAuthHarness();
const NOTES = { resource: 'https://notes.example/', scope: 'notes.read', stepUpScopes: 'notes.write' };
const OTHER = { resource: 'https://other.example/', scope: 'other.read' };
const nowS = () => Math.floor(Date.now() / 1000);

/** Signs in, then steps up from that tab with `options`, and returns the authorization URL it went to. */
async function stepUpFrom(options: Parameters<Tab['auth']['signIn']>[0]) {
  const tab = await h.signIn();
  await tab.auth.signIn(options);
  return new URL(h.lastNavigation());
}

/** The identity service approves the request at `url`; the app loads at the callback. */
const approve = (url: URL) => h.completeCallback(h.idp.approve(url.href));

describe('the authorization request', () => {
  it("asks for the session's scope plus the new one, once each, with acr_values and max_age", async () => {
    const url = await stepUpFrom({ scope: 'notes.write openid', acr_values: 'urn:example:mfa urn:example:pwd', max_age: 300 });
    const sent = url.searchParams;
    expect(sent.get('scope')).toBe(`${h.options.scope} notes.write`);
    expect(sent.get('acr_values')).toBe('urn:example:mfa urn:example:pwd');
    expect(sent.get('max_age')).toBe('300');
    // Interactive, in this tab: never prompt=none, and the pending record knows what was asked.
    expect(sent.get('prompt')).toBeNull();
    expect(h.assign.mock.lastCall?.[1]).toBeFalsy();
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!).stepUp).toEqual({
      scope: `${h.options.scope} notes.write`,
      added: 'notes.write openid',
      acr_values: 'urn:example:mfa urn:example:pwd',
      max_age: 300,
      sub: ALICE.sub,
    });
  });

  it("for an API (resource): the pending record names what it adds for that API, on top of earlier step-ups'", async () => {
    const options = { ...h.options, apis: { [API_ORIGIN]: NOTES, [OTHER_API_ORIGIN]: OTHER } };
    h.idp.refreshTokens = true;
    const tab = await h.signIn({ options });
    await tab.auth.signIn({ scope: 'notes.write', resource: NOTES.resource });
    const first = JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!).stepUp;
    expect(first).toEqual({
      scope: `${h.options.scope} notes.read other.read notes.write`,
      added: 'notes.write',
      apis: { [NOTES.resource]: 'notes.write' },
      sub: ALICE.sub,
    });
    const back = await h.completeCallback(h.idp.approve(h.lastNavigation()), options);
    await back.auth.signIn({ max_age: 0 });
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!).stepUp).toEqual({
      scope: first.scope,
      apis: { [NOTES.resource]: 'notes.write' },
      max_age: 0,
      sub: ALICE.sub,
    });
    // A plain sign-in keeps asking for what step-ups added, but names no person: anyone may sign in.
    await back.auth.signIn();
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!).stepUp).toEqual({
      scope: first.scope,
      apis: { [NOTES.resource]: 'notes.write' },
    });
  });

  it('a plain sign-in sends none of them and records no step-up', async () => {
    const url = await stepUpFrom({ returnTo: '/x' });
    expect([url.searchParams.get('acr_values'), url.searchParams.get('max_age')]).toEqual([null, null]);
    expect(url.searchParams.get('scope')).toBe(h.options.scope);
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!)).not.toHaveProperty('stepUp');
  });

  it.each([
    ['a scope with a quote', { scope: 'a"b' }],
    ['an empty scope', { scope: '' }],
    ['acr_values with a newline', { acr_values: 'a\nb' }],
    ['a negative max_age', { max_age: -1 }],
    ['a fractional max_age', { max_age: 1.5 }],
  ])('%s is a bug of the caller: a TypeError, and no navigation', async (_name, options) => {
    const tab = await h.signIn();
    const navigations = h.assign.mock.calls.length;
    const refused = tab.auth.signIn(options);
    await expect(refused).rejects.toBeInstanceOf(TypeError);
    await expect(refused).rejects.toThrow(/^signIn: scope and acr_values/);
    expect(h.assign.mock.calls.length).toBe(navigations);
  });
});

describe('after the callback', () => {
  it('signs in with the stepped-up token, hands back returnTo, and later sign-ins keep the added scope', async () => {
    const tab = await h.signIn();
    await tab.auth.signIn({ scope: 'notes.write', returnTo: '/notes?draft=1' });
    const back = await approve(new URL(h.lastNavigation()));
    expect(back.state.status).toBe('signed-in');
    expect(back.started).toEqual({ returnTo: '/notes?draft=1' });
    await back.auth.signIn();
    expect(new URL(h.lastNavigation()).searchParams.get('scope')).toBe(`${h.options.scope} notes.write`);
  });

  it('a granted scope that covers the new one (or no scope in the answer, RFC 6749 §5.1) is enough', async () => {
    h.idp.grantedScope = (requested) => `${requested} extra`;
    expect((await approve(await stepUpFrom({ scope: 'notes.write' }))).state.status).toBe('signed-in');
    h.idp.grantedScope = undefined;
    expect((await approve(await stepUpFrom({ scope: 'notes.write' }))).state.status).toBe('signed-in');
  });

  it('a granted scope without the new one: step_up_failed naming what is missing, and no new redirect', async () => {
    h.idp.grantedScope = (requested) => requested.replace(' notes.write', '');
    const url = await stepUpFrom({ scope: 'notes.write notes.read', returnTo: '/notes' });
    h.idp.grantedScope = () => `${h.options.scope} notes.read`;
    const navigations = h.assign.mock.calls.length;
    const back = await approve(url);
    expect(back.state).toMatchObject({
      status: 'error',
      error: { code: 'step_up_failed', scope: 'notes.write', returnTo: '/notes' },
    });
    expect(back.started).toEqual({});
    expect(h.assign.mock.calls.length).toBe(navigations);
  });

  it('with resource indicators the scope is left to the token for the API (RFC 8707 §2.2): the sign-in token need not carry it', async () => {
    const options = {
      ...h.options,
      apis: { 'https://notes.example': { resource: 'https://notes.example', scope: 'notes.read' } },
    };
    h.idp.grantedScope = () => h.options.scope;
    const tab = await h.signIn({ options });
    await tab.auth.signIn({ scope: 'notes.write', returnTo: '/notes' });
    const back = await h.completeCallback(h.idp.approve(h.lastNavigation()), options);
    expect(back.state.status).toBe('signed-in');
  });

  it('max_age: a fresh auth_time passes (checked by oauth4webapi)', async () => {
    h.idp.idTokenExtra = { auth_time: nowS() };
    expect((await approve(await stepUpFrom({ max_age: 60 }))).state.status).toBe('signed-in');
  });

  it.each([
    ['too old', () => ({ auth_time: nowS() - 3600 })],
    ['absent', () => ({})],
  ])('max_age with an auth_time %s: step_up_failed with the max_age asked', async (_name, claims) => {
    h.idp.idTokenExtra = claims();
    const back = await approve(await stepUpFrom({ max_age: 60, returnTo: '/api' }));
    expect(back.state).toMatchObject({ status: 'error', error: { code: 'step_up_failed', max_age: 60, returnTo: '/api' } });
  });

  it('acr: one among acr_values passes, one outside is step_up_failed, none named is accepted', async () => {
    h.idp.idTokenExtra = { acr: 'urn:example:mfa' };
    expect((await approve(await stepUpFrom({ acr_values: 'urn:example:hw urn:example:mfa' }))).state.status).toBe('signed-in');
    h.idp.idTokenExtra = { acr: 'urn:example:pwd' };
    const refused = await approve(await stepUpFrom({ acr_values: 'urn:example:mfa' }));
    expect(refused.state).toMatchObject({ status: 'error', error: { code: 'step_up_failed', acr_values: 'urn:example:mfa' } });
    h.idp.idTokenExtra = {};
    expect((await approve(await stepUpFrom({ acr_values: 'urn:example:mfa' }))).state.status).toBe('signed-in');
  });

  it('a pending step-up record that was tampered with is refused before any token request', async () => {
    const url = await stepUpFrom({ scope: 'notes.write' });
    const record = JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!);
    sessionStorage.setItem(NAMES.key('tx'), JSON.stringify({ ...record, stepUp: { scope: 'a"b', max_age: '60' } }));
    const tokenRequests = h.idp.tokenRequests().length;
    const back = await approve(url);
    expect(back.state).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
    expect(h.idp.tokenRequests()).toHaveLength(tokenRequests);
  });

  it.each([
    ['a resource that is no API of the instance', { 'https://evil.example/': 'admin' }],
    ['a scope that is no scope-token list', { [NOTES.resource]: 'a"b' }],
    ['a list for the API', ['notes.write']],
    ['text for the record', 'notes.write'],
    ['null', null],
  ])('a pending record whose per-API scope names %s is refused before any token request', async (_name, apis) => {
    const options = { ...h.options, apis: { [API_ORIGIN]: NOTES } };
    const tab = await h.signIn({ options });
    await tab.auth.signIn({ scope: 'notes.write', resource: NOTES.resource });
    const url = h.lastNavigation();
    const record = JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!);
    sessionStorage.setItem(NAMES.key('tx'), JSON.stringify({ ...record, stepUp: { ...record.stepUp, apis } }));
    const tokenRequests = h.idp.tokenRequests().length;
    const back = await h.completeCallback(h.idp.approve(url), options);
    expect(back.state).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
    expect(h.idp.tokenRequests()).toHaveLength(tokenRequests);
  });

  it('the step-up error is an AuthError a view reads from the session, without a cause', async () => {
    h.idp.idTokenExtra = { auth_time: nowS() - 3600 };
    const back = await approve(await stepUpFrom({ max_age: 0 }));
    expect(back.state.error).not.toBeInstanceOf(AuthError);
    expect(back.state.error).toEqual({ code: 'step_up_failed', max_age: 0, returnTo: new URL(APP_URL).pathname });
  });
});

describe('answered as another person', () => {
  it("is account_changed and changes nothing: the session, its tokens and its scope stay the first person's", async () => {
    const tab = await h.signIn();
    const other = await h.loadAt(APP_URL);
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    const token = h.idp.to(API_URL).at(-1)!.headers.get('authorization');
    const alices = h.idp.issued.flatMap((body) => [body.access_token, body.refresh_token]).filter(Boolean);
    await tab.auth.signIn({ scope: 'notes.write', returnTo: '/notes' });
    await h.close(tab); // the page left for the identity service
    h.idp.user = BOB;
    const back = await approve(new URL(h.lastNavigation()));
    expect(back.state).toMatchObject({ status: 'error', user: null, error: { code: 'account_changed', returnTo: '/notes' } });
    expect(back.started).toEqual({});
    // Bob's tokens were issued, and are never used (revoked where the provider can); nothing of Alice's was revoked.
    expect(h.idp.issued.at(-1)!.id_token).toBeDefined();
    expect(h.idp.revoked().filter((token) => alices.includes(token))).toEqual([]);
    // The app's other page still shows Alice, and a new one joins her session.
    expect(other.state).toMatchObject({ status: 'signed-in', user: { sub: ALICE.sub } });
    const next = await h.loadAt(APP_URL);
    expect(next.state).toMatchObject({ status: 'signed-in', user: { sub: ALICE.sub } });
    // With her token, not one of Bob's,
    expect((await next.auth.fetch(API_URL)).status).toBe(200);
    expect(h.idp.to(API_URL).at(-1)!.headers.get('authorization')).toBe(token);
    // and her scope: the next sign-in asks for no notes.write.
    await next.auth.signIn();
    expect(new URL(h.lastNavigation()).searchParams.get('scope')).toBe(h.options.scope);
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!)).not.toHaveProperty('stepUp');
  });
  it("in the page (no shared worker) too: the callback page's new engine knows the person from the pending step-up", async () => {
    h.sharedWorkers = false;
    const tab = await h.signIn();
    await tab.auth.signIn({ scope: 'notes.write' });
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!).stepUp.sub).toBe(ALICE.sub);
    await h.close(tab);
    h.idp.user = BOB;
    const back = await approve(new URL(h.lastNavigation()));
    expect(back.state).toMatchObject({ status: 'error', user: null, error: { code: 'account_changed' } });
    // No session of Bob's began: this page's engine holds none, and no other tab heard of one.
    await expect(back.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(h.idp.to(API_URL)).toEqual([]);
    const signals = FakeBroadcastChannel.posted.map(({ data }) => data as { type: string; sub?: string });
    expect(signals).toContainEqual(expect.objectContaining({ type: 'signed-in', sub: ALICE.sub }));
    expect(signals).not.toContainEqual(expect.objectContaining({ sub: BOB.sub }));
  });
});

describe('stepUpRequest', () => {
  const SESSION = 'openid profile notes.read';

  it('is nothing when nothing is asked: a plain sign-in', () => {
    expect(stepUpRequest(SESSION, {})).toBeUndefined();
  });

  it("asks for the session's scope plus the added tokens, once each, and remembers what was added", () => {
    expect(stepUpRequest(SESSION, { scope: 'notes.write notes.read' })).toEqual({
      scope: 'openid profile notes.read notes.write',
      added: 'notes.write notes.read',
    });
  });

  it("asks for acr_values and max_age (0 too) with the session's scope, and adds no scope", () => {
    expect(stepUpRequest(SESSION, { acr_values: 'urn:mfa phr', max_age: 0 })).toEqual({
      scope: SESSION,
      acr_values: 'urn:mfa phr',
      max_age: 0,
    });
    expect(stepUpRequest(SESSION, { max_age: MAX_AGE_LIMIT_S })).toEqual({ scope: SESSION, max_age: MAX_AGE_LIMIT_S });
  });

  it('records the scope for the API it names, on top of what earlier step-ups added for each API', () => {
    const NOTES = 'https://notes.example/';
    const OTHER = 'https://other.example/';
    expect(stepUpRequest(SESSION, { scope: 'notes.write', resource: NOTES }, [NOTES, OTHER])).toEqual({
      scope: `${SESSION} notes.write`,
      added: 'notes.write',
      apis: { [NOTES]: 'notes.write' },
    });
    const earlier = { [NOTES]: 'notes.write', [OTHER]: 'other.write' };
    expect(stepUpRequest(SESSION, { scope: 'notes.admin', resource: NOTES }, [NOTES, OTHER], earlier)).toEqual({
      scope: `${SESSION} notes.admin`,
      added: 'notes.admin',
      apis: { [NOTES]: 'notes.write notes.admin', [OTHER]: 'other.write' },
    });
    // Without an API the scope widens the sign-in token only; earlier records are kept as they are.
    expect(stepUpRequest(SESSION, { scope: 'service.admin' }, [NOTES], earlier)?.apis).toEqual(earlier);
    expect(stepUpRequest(SESSION, { max_age: 0 }, [NOTES], earlier)?.apis).toEqual(earlier);
  });

  it("a resource that is none of the instance's APIs is the caller's bug: a TypeError", () => {
    expect(() => stepUpRequest(SESSION, { scope: 'a', resource: 'https://evil.example/' }, ['https://notes.example/'])).toThrow(
      /^signIn: .* resource/,
    );
  });

  it.each([
    ['a scope with a quote', { scope: 'a"b' }],
    ['an empty scope', { scope: '' }],
    ['a scope with two spaces', { scope: 'a  b' }],
    ['acr_values with a newline', { acr_values: 'a\nb' }],
    ['empty acr_values', { acr_values: '' }],
    ['a negative max_age', { max_age: -1 }],
    ['a fractional max_age', { max_age: 1.5 }],
    ['a max_age over a year', { max_age: MAX_AGE_LIMIT_S + 1 }],
  ])("%s is the caller's bug: a TypeError that names the options", (_name, options) => {
    expect(() => stepUpRequest(SESSION, options)).toThrow(TypeError);
    expect(() => stepUpRequest(SESSION, options)).toThrow(/^signIn: scope and acr_values .* max_age/);
  });
});

// Sign-in hints (hints.ts, authorize.ts): what signIn({ login_hint, ui_locales, prompt, extraParams })
// puts in the authorization request, observed where the page leaves for the identity service; and what
// it refuses (a name the options do not allow, a parameter the module owns, a value out of bounds,
// `prompt=create` the provider does not advertise): a typed error, no navigation, no pending record.
import { describe, expect, it } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import { NAMES } from '../__fixtures__/fake-idp';
import { assembleAuth, type ClientOptions, type ServerEndpoints, type SignInOptions } from '../auth';

/** Options on top of the harness's. */
type Extra = Partial<ClientOptions> & { server?: ServerEndpoints };
import { hintsOf } from './hints';

const h = useAuthHarness();

/** A started tab of an instance with the harness's options and `extra` ones. */
async function tab(extra: Extra = {}) {
  const port = h.port();
  const auth = assembleAuth({ ...h.options, ...extra }, { browser: () => port, network: (r) => h.idp.fetch(r) });
  await auth.start();
  return auth;
}

/** The authorization request's parameters of a sign-in with `options`. */
async function sent(options: SignInOptions, extra?: Extra): Promise<URLSearchParams> {
  const auth = await tab(extra);
  await auth.signIn(options);
  auth.destroy();
  return new URL(h.lastNavigation()).searchParams;
}

describe('sign-in hints', () => {
  it('sends login_hint, ui_locales and prompt as given', async () => {
    const params = await sent({ login_hint: 'bob@example.test', ui_locales: 'de-CH fr', prompt: 'select_account' });
    expect(params.get('login_hint')).toBe('bob@example.test');
    expect(params.get('ui_locales')).toBe('de-CH fr');
    expect(params.get('prompt')).toBe('select_account');
  });

  it('sends none of them unasked', async () => {
    const params = await sent({});
    for (const name of ['login_hint', 'ui_locales', 'prompt']) expect(params.has(name)).toBe(false);
  });

  it("an app's prompt wins over the account choice the module asks for after a sign-out", async () => {
    localStorage.setItem(NAMES.key('hint'), 'out');
    expect((await sent({})).get('prompt')).toBe('login');
    expect((await sent({ prompt: 'consent' })).getAll('prompt')).toEqual(['consent']);
  });

  it('an explicit prompt=none is a silent attempt: its refusal signs out quietly', async () => {
    const auth = await tab();
    await auth.signIn({ prompt: 'none' });
    expect(h.assign.mock.lastCall?.[1]).toBe(true);
    expect(JSON.parse(sessionStorage.getItem(NAMES.key('tx'))!).silent).toBe(true);
    auth.destroy();
  });

  it('sends an extra parameter the options allow, and never lets it replace one of the module', async () => {
    const params = await sent(
      { extraParams: { organization: 'acme', audience: 'x' } },
      { extraParams: ['organization', 'audience'] },
    );
    expect(params.get('organization')).toBe('acme');
    expect(params.get('audience')).toBe('x');
    expect(params.get('client_id')).toBe(h.options.clientId);
  });
});

describe('refused: a typed error, nothing sent, no navigation', () => {
  it.each<[string, SignInOptions, Extra, string]>([
    ['an extra name the options do not allow', { extraParams: { organization: 'acme' } }, {}, 'organization'],
    ['an extra name allowed for another', { extraParams: { audience: 'x' } }, { extraParams: ['organization'] }, 'audience'],
    ['a parameter the module sets, even when allowed', { extraParams: { state: 'mine' } }, { extraParams: ['state'] }, 'state'],
    [
      'redirect_uri, even when allowed',
      { extraParams: { redirect_uri: 'https://evil.test/' } },
      { extraParams: ['redirect_uri'] },
      'redirect_uri',
    ],
    ['a hint through extraParams', { extraParams: { login_hint: 'bob' } }, { extraParams: ['login_hint'] }, 'login_hint'],
    [
      'an extra value with a control character',
      { extraParams: { organization: 'a\nb' } },
      { extraParams: ['organization'] },
      'organization',
    ],
    [
      'an extra value too long',
      { extraParams: { organization: 'a'.repeat(513) } },
      { extraParams: ['organization'] },
      'organization',
    ],
    ['a login_hint too long', { login_hint: 'b'.repeat(257) }, {}, 'login_hint'],
    ['a login_hint with a bidi override', { login_hint: 'bob\u202e' }, {}, 'login_hint'],
    ['an empty login_hint', { login_hint: '' }, {}, 'login_hint'],
    ['ui_locales that are not language tags', { ui_locales: 'de;q=1' }, {}, 'ui_locales'],
    ['ui_locales too long', { ui_locales: Array(40).fill('de-CH').join(' ') }, {}, 'ui_locales'],
    ['a prompt outside OIDC', { prompt: 'always' as SignInOptions['prompt'] }, {}, 'prompt'],
    ['prompt=create the provider does not advertise', { prompt: 'create' }, {}, 'prompt'],
  ])('%s', async (_name, options, extra, parameter) => {
    const auth = await tab(extra);
    await auth.signIn(options);
    expect(auth.session.current).toMatchObject({ status: 'error', error: { code: 'param_not_allowed', parameter } });
    expect(h.assign).not.toHaveBeenCalled();
    expect(sessionStorage.getItem(NAMES.key('tx'))).toBeNull();
    expect(h.idp.requests).toEqual([]);
    auth.destroy();
  });

  it('prompt=create is sent where the provider advertises it', async () => {
    const server = { ...h.options.server, prompt_values_supported: ['none', 'login', 'create'] };
    expect((await sent({ prompt: 'create' }, { server })).get('prompt')).toBe('create');
  });
});

describe('hintsOf: the hints of a sign-in link', () => {
  it('keeps valid ones', () => {
    expect(hintsOf(new URLSearchParams('login_hint=bob&ui_locales=de%20en-GB&prompt=create'))).toEqual({
      login_hint: 'bob',
      ui_locales: 'de en-GB',
    });
  });

  it.each(['login_hint=&ui_locales=', `login_hint=${'b'.repeat(257)}&ui_locales=de_DE`, 'login_hint=%00bob&ui_locales=<x>', ''])(
    'drops invalid or absent ones: %s',
    (query) => expect(hintsOf(new URLSearchParams(query))).toEqual({}),
  );
});

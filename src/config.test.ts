// Issue 2, "Runtime configuration": every key validated at start-up, errors naming the key.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authOptions, ConfigError, DEFAULT_SCOPE, loadConfig, parseConfig, tokenOrigins } from './config';
import { createAuth } from './lib/auth';

const APP = 'http://localhost:5173/';
const VALID = { accountUrl: 'https://account.example.com', authUrl: 'https://auth.example.com', clientId: 'demo-spa' };

/** The key a ConfigError names, or 'accepted'. */
function verdict(raw: unknown, appUrl = APP): string {
  try {
    parseConfig(raw, appUrl);
    return 'accepted';
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    expect(err.message).toContain(err.key);
    return err.key;
  }
}

describe('defaults', () => {
  it('fills scope, redirectUri, issuer, requireIss, timeout, no API origins and dpop; no sign-out endpoints', () => {
    const config = parseConfig(VALID, 'https://app.example.com/spa/index.html?x=1#/profile');
    expect(config).toEqual({
      accountUrl: 'https://account.example.com',
      authUrl: 'https://auth.example.com',
      clientId: 'demo-spa',
      scope: 'openid profile email service.api',
      redirectUri: 'https://app.example.com/spa/index.html',
      issuer: 'https://account.example.com',
      requireIss: false,
      apiOrigins: [],
      apis: {},
      stepUpScopes: undefined,
      apiUrl: undefined,
      timeoutMs: 15_000,
      endSessionUrl: undefined,
      revocationUrl: undefined,
      dpop: false,
      hiddenFrame: true,
    });
    expect(DEFAULT_SCOPE).toBe('openid profile email service.api');
  });

  it('the default redirect URI is the app root for the dev URL', () => {
    expect(parseConfig(VALID, 'http://localhost:5173/#/signin?returnTo=/api').redirectUri).toBe('http://localhost:5173/');
  });

  it('base URLs lose trailing slashes; issuer defaults to accountUrl', () => {
    const config = parseConfig({ ...VALID, accountUrl: 'https://account.example.com/tenant/' }, APP);
    expect(config.accountUrl).toBe('https://account.example.com/tenant');
    expect(config.issuer).toBe('https://account.example.com/tenant');
  });

  it('keeps explicit values: issuer verbatim, scope normalised, requireIss, timeoutMs, redirectUri, endpoints, dpop', () => {
    const config = parseConfig(
      {
        ...VALID,
        issuer: 'https://issuer.example.com/',
        scope: '  openid   profile ',
        requireIss: true,
        timeoutMs: 5000,
        redirectUri: 'https://app.example.com/callback',
        endSessionUrl: 'https://account.example.com/connect/endsession?ui=1',
        revocationUrl: 'https://account.example.com/connect/revocation',
        dpop: true,
      },
      APP,
    );
    expect(config).toMatchObject({
      issuer: 'https://issuer.example.com/',
      scope: 'openid profile',
      requireIss: true,
      timeoutMs: 5000,
      redirectUri: 'https://app.example.com/callback',
      endSessionUrl: 'https://account.example.com/connect/endsession?ui=1',
      revocationUrl: 'https://account.example.com/connect/revocation',
      dpop: true,
    });
  });

  it('idleTimeoutMs and idleWarnMs become the idle option, whole milliseconds up to a day', () => {
    expect(parseConfig({ ...VALID, idleTimeoutMs: 86_400_000, idleWarnMs: 1 }, APP).idle).toEqual({
      timeoutMs: 86_400_000,
      warnMs: 1,
    });
    expect(parseConfig(VALID, APP).idle).toBeUndefined();
  });

  it('keepSessionMs is kept as given, whole milliseconds from 0 to a day; without it, the module decides', () => {
    for (const ms of [0, 1, 120_000, 86_400_000])
      expect(parseConfig({ ...VALID, keepSessionMs: ms }, APP).keepSessionMs).toBe(ms);
    expect(parseConfig(VALID, APP).keepSessionMs).toBeUndefined();
  });

  it.each([{ idleTimeoutMs: 600_000 }, { idleWarnMs: 60_000 }])('idle keys come both or neither: %j names idleWarnMs', (idle) => {
    expect(verdict({ ...VALID, ...idle })).toBe('idleWarnMs');
  });

  it('apiOrigins are kept as listed, each once', () => {
    const config = parseConfig(
      { ...VALID, apiOrigins: ['https://api.example.com', 'https://auth.example.com', 'https://api.example.com/'] },
      APP,
    );
    expect(config.apiOrigins).toEqual(['https://api.example.com', 'https://auth.example.com']);
  });

  it('apiOrigins entries become the origins browsers compare: case, default port and IDN normalised', () => {
    const config = parseConfig(
      { ...VALID, apiOrigins: ['HTTPS://API.Example.com:443', 'https://bücher.example', 'http://[::1]:8080/'] },
      APP,
    );
    expect(config.apiOrigins).toEqual(['https://api.example.com', 'https://xn--bcher-kva.example', 'http://[::1]:8080']);
  });

  it('without the page URL (the deployment check) a missing redirectUri stays missing; a given one is still checked', () => {
    expect(parseConfig(VALID).redirectUri).toBeUndefined();
    expect(parseConfig({ ...VALID, redirectUri: 'https://app.example.com/cb' }).redirectUri).toBe('https://app.example.com/cb');
    expect(() => parseConfig({ ...VALID, redirectUri: 'http://app.example.com/' })).toThrow(ConfigError);
  });
});

describe('required keys', () => {
  it.each(['accountUrl', 'authUrl', 'clientId'])('a missing %s is named', (key) => {
    const raw: Record<string, unknown> = { ...VALID };
    delete raw[key];
    expect(verdict(raw)).toBe(key);
  });

  it.each([null, [], 'config', 42])('a config.json that is not an object (%j) is refused', (raw) => {
    expect(verdict(raw)).toBe('config.json');
  });
});

describe('malformed values name their key', () => {
  it.each([
    ['accountUrl', 'not a url'],
    ['accountUrl', 42],
    ['accountUrl', 'ftp://account.example.com'],
    ['accountUrl', 'javascript:alert(1)'],
    ['accountUrl', 'https://user:pw@account.example.com'],
    ['accountUrl', 'https://account.example.com/#fragment'],
    // Endpoint paths are appended to these bases, so a query would end up in front of the path.
    ['accountUrl', 'https://account.example.com/?tenant=a'],
    ['authUrl', 'https://auth.example.com/?tenant=a'],
    ['authUrl', '/relative'],
    ['authUrl', 'http://auth.example.com'],
    ['clientId', ''],
    ['clientId', '   '],
    ['clientId', 42],
    ['clientId', 'x'.repeat(5000)],
    ['scope', ''],
    ['scope', ['openid']],
    ['redirectUri', 'http://app.example.com/'],
    ['redirectUri', 'nope'],
    ['issuer', 'not a url'],
    ['issuer', 'http://issuer.example.com'],
    ['requireIss', 'true'],
    ['requireIss', 1],
    ['timeoutMs', 0],
    ['timeoutMs', 99],
    ['timeoutMs', 120_001],
    ['timeoutMs', 1.5],
    ['timeoutMs', '15000'],
    ['apiOrigins', 'https://api.example.com'],
    ['apiOrigins', ['https://api.example.com/path']],
    ['apiOrigins', ['https://api.example.com/?q=1']],
    ['apiOrigins', ['http://api.example.com']],
    ['apiOrigins', [42]],
    ['apis', ['https://api.example.com']],
    ['apis', { 'https://api.example.com/v1': { resource: 'https://api.example.com' } }],
    ['apis', { 'http://api.example.com': { resource: 'http://api.example.com' } }],
    ['apis', { 'https://api.example.com': 'https://api.example.com' }],
    ['apis', { 'https://api.example.com': {} }],
    ['apis', { 'https://api.example.com': { resource: 'api.example.com' } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com/#x' } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com', scope: '' } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com', scope: ['orders.read'] } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com', scopes: 'orders.read' } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com', stepUpScopes: ' ' } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com', stepUpScopes: ['orders.write'] } }],
    ['apis', { 'https://api.example.com': { resource: 'https://api.example.com', stepUpScope: 'orders.write' } }],
    ['stepUpScopes', ''],
    ['stepUpScopes', ['orders.write']],
    ['apiUrl', 'https://elsewhere.example.com/api'],
    ['apiUrl', 'http://api.example.com/api'],
    ['endSessionUrl', 'http://account.example.com/connect/endsession'],
    ['endSessionUrl', 'not a url'],
    ['endSessionUrl', 42],
    ['endSessionUrl', 'https://user:pw@account.example.com/connect/endsession'],
    ['endSessionUrl', 'https://account.example.com/connect/endsession#x'],
    ['revocationUrl', 'http://account.example.com/connect/revocation'],
    ['revocationUrl', '/connect/revocation'],
    ['revocationUrl', true],
    ['dpop', 'true'],
    ['dpop', 1],
    ['dpop', null],
    ['hiddenFrame', 'false'],
    ['hiddenFrame', 0],
    ['idleTimeoutMs', 0],
    ['idleTimeoutMs', -600_000],
    ['idleTimeoutMs', 86_400_001],
    ['idleTimeoutMs', 600_000.5],
    ['idleTimeoutMs', '600000'],
    ['idleWarnMs', 0],
    ['idleWarnMs', -60_000],
    ['idleWarnMs', 600_000],
    ['idleWarnMs', 900_000],
    ['idleWarnMs', 60_000.5],
    ['idleWarnMs', null],
    ['keepSessionMs', -1],
    ['keepSessionMs', 86_400_001],
    ['keepSessionMs', 1000.5],
    ['keepSessionMs', '120000'],
    ['keepSessionMs', null],
  ])('%s = %j', (key, value) => {
    const idle = { idleTimeoutMs: 600_000, idleWarnMs: 60_000 };
    const raw = { ...VALID, apiOrigins: ['https://api.example.com'], ...idle, [key]: value };
    expect(verdict(raw)).toBe(key);
  });
});

describe('plain http only for loopback hosts', () => {
  it.each([
    'http://localhost:9010',
    'http://LOCALHOST:9010',
    'http://a.localhost:9010',
    'http://id.dev.localhost',
    'http://127.0.0.1:9010',
    'http://127.0.0.2:9010',
    'http://127.255.255.254',
    'http://[::1]:9010',
  ])('%s is accepted', (url) => {
    const endpoints = { endSessionUrl: `${url}/connect/endsession`, revocationUrl: `${url}/connect/revocation` };
    expect(
      verdict({ ...VALID, accountUrl: url, authUrl: url, redirectUri: url, issuer: url, apiOrigins: [url], ...endpoints }),
    ).toBe('accepted');
  });

  it.each([
    'http://example.com',
    'http://localhost.example.com',
    'http://127.0.0.1.example.com',
    'http://notlocalhost',
    'http://128.0.0.1',
    'http://10.0.0.1',
    'http://0.0.0.0',
    'http://[::2]',
    'http://[::ffff:7f00:1]',
  ])('%s is refused', (url) => {
    expect(verdict({ ...VALID, accountUrl: url })).toBe('accountUrl');
  });

  it('https is accepted anywhere', () => {
    expect(verdict({ ...VALID, accountUrl: 'https://10.0.0.1' })).toBe('accepted');
  });

  it('an app page served over plain http from a non-loopback host is refused (no WebCrypto there)', () => {
    expect(verdict(VALID, 'http://app.example.com/')).toBe('redirectUri');
    expect(verdict(VALID, 'https://app.example.com/')).toBe('accepted');
  });
});

describe('apiUrl', () => {
  it('must be on an allow-listed origin: apiOrigins or authUrl', () => {
    expect(
      parseConfig({ ...VALID, apiOrigins: ['https://api.example.com'], apiUrl: 'https://api.example.com/v1/x' }, APP).apiUrl,
    ).toBe('https://api.example.com/v1/x');
    expect(parseConfig({ ...VALID, apiUrl: 'https://auth.example.com/api' }, APP).apiUrl).toBe('https://auth.example.com/api');
    expect(verdict({ ...VALID, apiUrl: 'https://api.example.com:444/x', apiOrigins: ['https://api.example.com'] })).toBe(
      'apiUrl',
    );
  });
});

describe('apis', () => {
  it('maps origins as browsers write them to a resource kept verbatim and a normalised scope; their origins are allow-listed', () => {
    const config = parseConfig(
      {
        ...VALID,
        apiOrigins: ['https://api.example.com'],
        apis: {
          'HTTPS://Orders.Example.com:443/': {
            resource: 'https://orders.example.com',
            scope: ' orders.read   orders.write ',
            stepUpScopes: 'orders.admin\t orders.export',
          },
          'http://127.0.0.1:9012': { resource: 'http://127.0.0.1:9012' },
          'https://api.example.com': { resource: 'api://demo-api' },
        },
      },
      APP,
    );
    expect(config.apis).toEqual({
      'https://orders.example.com': {
        resource: 'https://orders.example.com',
        scope: 'orders.read orders.write',
        stepUpScopes: 'orders.admin orders.export',
      },
      'http://127.0.0.1:9012': { resource: 'http://127.0.0.1:9012' },
      'https://api.example.com': { resource: 'api://demo-api' },
    });
    expect(config.apiOrigins).toEqual(['https://api.example.com']);
    expect(tokenOrigins(config)).toEqual(['https://api.example.com', 'https://orders.example.com', 'http://127.0.0.1:9012']);
  });

  it('stepUpScopes (for origins without an entry) is a normalised list, handed to the auth module', () => {
    const config = parseConfig({ ...VALID, stepUpScopes: ' service.admin  service.export ' }, APP);
    expect(config.stepUpScopes).toBe('service.admin service.export');
    expect(authOptions(config)).toMatchObject({ stepUpScopes: 'service.admin service.export' });
  });

  it('an origin written twice is refused', () => {
    const apis = {
      'https://api.example.com': { resource: 'https://api.example.com' },
      'https://API.example.com:443': { resource: 'https://api.example.com/v2' },
    };
    expect(() => parseConfig({ ...VALID, apis }, APP)).toThrow('apis lists https://api.example.com twice');
  });

  it('an apiUrl on an origin of apis is allow-listed', () => {
    const apis = { 'https://api.example.com': { resource: 'https://api.example.com' } };
    expect(parseConfig({ ...VALID, apis, apiUrl: 'https://api.example.com/x' }, APP).apiUrl).toBe('https://api.example.com/x');
  });
});

describe('authOptions', () => {
  it("maps the config onto the auth module's options: endpoints under the two base URLs", () => {
    const config = parseConfig(
      {
        accountUrl: 'https://account.example.com/tenant/',
        authUrl: 'https://auth.example.com/base',
        clientId: 'demo-spa',
        scope: 'openid profile',
        issuer: 'https://issuer.example.com/',
        requireIss: true,
        apiOrigins: ['https://api.example.com'],
        timeoutMs: 5000,
        endSessionUrl: 'https://account.example.com/connect/endsession',
        revocationUrl: 'https://account.example.com/connect/revocation',
        dpop: true,
      },
      'https://app.example.com/',
    );
    expect(authOptions(config)).toMatchObject({
      server: {
        issuer: 'https://issuer.example.com/',
        authorization_endpoint: 'https://account.example.com/tenant/connect/authorize',
        token_endpoint: 'https://account.example.com/tenant/connect/token',
        userinfo_endpoint: 'https://auth.example.com/base/connect/userinfo',
        end_session_endpoint: 'https://account.example.com/connect/endsession',
        revocation_endpoint: 'https://account.example.com/connect/revocation',
      },
      clientId: 'demo-spa',
      redirectUri: 'https://app.example.com/',
      scope: 'openid profile',
      requireIss: true,
      apiOrigins: ['https://api.example.com'],
      timeoutMs: 5000,
      dpop: true,
    });
  });

  it('without the optional keys: no sign-out endpoints, no DPoP, the defaults', () => {
    const options = authOptions(parseConfig(VALID, APP));
    expect(options).toMatchObject({
      server: {
        issuer: 'https://account.example.com',
        authorization_endpoint: 'https://account.example.com/connect/authorize',
        userinfo_endpoint: 'https://auth.example.com/connect/userinfo',
      },
      scope: DEFAULT_SCOPE,
      requireIss: false,
      apiOrigins: [],
      timeoutMs: 15_000,
      dpop: false,
    });
    expect(options.server.end_session_endpoint).toBeUndefined();
    expect(options.server.revocation_endpoint).toBeUndefined();
    expect(options.keepSessionMs).toBeUndefined();
  });

  it('passes keepSessionMs on, 0 (forget at once) included, and createAuth takes it', () => {
    for (const ms of [0, 30_000]) {
      const options = authOptions(parseConfig({ ...VALID, keepSessionMs: ms }, APP));
      expect(options.keepSessionMs).toBe(ms);
      expect(() => createAuth(options)).not.toThrow();
    }
  });

  it('an origin listed only under apis may receive tokens: it is in the allow-list with those of apiOrigins', () => {
    const apis = { 'https://orders.example.com': { resource: 'https://orders.example.com/', scope: 'orders.read' } };
    const options = authOptions(parseConfig({ ...VALID, apiOrigins: ['https://api.example.com'], apis }, APP));
    expect(options.apiOrigins).toEqual(['https://api.example.com', 'https://orders.example.com']);
    expect(options.apis).toEqual(apis);
  });
});

describe('tokenOrigins (the allow-list and the CSP both use it)', () => {
  const apis = {
    'HTTPS://Orders.Example.com:443/': { resource: 'https://orders.example.com' },
    'https://api.example.com': { resource: 'api://demo-api' },
  };

  it('the origins of apiOrigins and of the keys of apis, as bare origins, each once, in order', () => {
    expect(tokenOrigins({ apiOrigins: ['https://api.example.com/', 'http://127.0.0.1:9012'], apis })).toEqual([
      'https://api.example.com',
      'http://127.0.0.1:9012',
      'https://orders.example.com',
    ]);
    expect(tokenOrigins({ apis })).toEqual(['https://orders.example.com', 'https://api.example.com']);
    expect(tokenOrigins({})).toEqual([]);
  });

  it('the same from config.json as read and from the config the app parsed', () => {
    const raw = { ...VALID, apiOrigins: ['HTTPS://API.example.com:443'], apis };
    expect(tokenOrigins(parseConfig(raw, APP))).toEqual(tokenOrigins(raw));
  });

  it("never adds authUrl's origin (userinfo's is allowed by the auth module itself, and connect-src has it)", () => {
    expect(tokenOrigins(parseConfig(VALID, APP))).toEqual([]);
  });

  it('only reads: from a file as read it leaves out what is not a URL (parseConfig refuses such a file, naming the key)', () => {
    const raw = { apiOrigins: ['not a url', 42, 'https://api.example.com/v1', 'data:,x'], apis: { '/relative': {}, ...apis } };
    expect(tokenOrigins(raw)).toEqual(['https://api.example.com', 'https://orders.example.com']);
    expect(tokenOrigins({ apiOrigins: 'https://api.example.com', apis: null })).toEqual([]);
    expect(verdict({ ...VALID, ...raw })).toBe('apis');
  });
});

describe('loadConfig', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('fetches config.json beside the page and validates it', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify(VALID), { headers: { 'content-type': 'application/json' } }));
    vi.stubGlobal('fetch', fetch);
    const config = await loadConfig('https://app.example.com/spa/index.html#/profile');
    expect(String((fetch.mock.calls[0] as unknown[])[0])).toBe('https://app.example.com/spa/config.json');
    expect(config).toEqual(parseConfig(VALID, 'https://app.example.com/spa/index.html'));
  });

  it.each([
    ['a 404', () => new Response('not found', { status: 404 })],
    ['not JSON', () => new Response('<html>', { headers: { 'content-type': 'text/html' } })],
    ['unreachable', () => Promise.reject(new TypeError('Failed to fetch'))],
  ])('%s is a config.json error', async (_name, answer) => {
    vi.stubGlobal('fetch', vi.fn(answer));
    await expect(loadConfig(APP)).rejects.toMatchObject({ key: 'config.json' });
  });

  it('an invalid file names the bad key', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ ...VALID, authUrl: 'http://auth.example.com' }))),
    );
    await expect(loadConfig(APP)).rejects.toMatchObject({ key: 'authUrl' });
  });
});

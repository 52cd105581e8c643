// check-config against the real local provider, correctly configured and configured wrongly on
// purpose one way at a time, and against small loopback servers that answer a wrong, missing or
// broken discovery document, or wrong headers no oidc-provider sends.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';

import { closeServer, listen } from '../idp/http.js';
import { startIdp } from '../idp/server.js';
import { parseConfig } from '../src/config-rules.js';
import { checkConfig } from './check-config.js';
import { checkProvider, framingRefusal } from './check-provider.js';

/** The app's page and redirect URI: one the local provider registers by default. */
const APP = 'http://localhost:5173/';
const APP_ORIGIN = 'http://localhost:5173';

/**
 * A provider for this test, closed when it finishes.
 * @param {import('../idp/server.js').IdpOptions} [options]
 */
async function provider(options = {}) {
  const idp = await startIdp({ quiet: true, ...options });
  onTestFinished(() => idp.close());
  return idp;
}

/** @param {Awaited<ReturnType<typeof provider>>} idp */
const configOf = (idp) => ({
  accountUrl: idp.accountUrl,
  authUrl: idp.authUrl,
  clientId: idp.clientId,
  redirectUri: APP,
  endSessionUrl: `${idp.accountUrl}/connect/endsession`,
  revocationUrl: `${idp.accountUrl}/connect/revocation`,
  dpop: true,
});

/** @type {string} */
let dir;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'check-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * `npm run check-config` on `content` written to a file, with further arguments.
 * @param {unknown} content
 * @param {string[]} [args]
 */
async function cli(content, args = []) {
  const script = fileURLToPath(new URL('./check-config.js', import.meta.url));
  const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, file, ...args], { timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = /** @type {{ code: number, stdout: string, stderr: string }} */ (error);
    return { code, stdout, stderr };
  }
}

/** The lines of the CLI's stdout that are not `ok`: its findings. @param {string} stdout */
const findings = (stdout) =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('ok  '));

/**
 * A loopback server answering every request with `handler`, closed when the test finishes.
 * @param {import('node:http').RequestListener} handler
 */
async function serve(handler) {
  const server = createServer(handler);
  const port = await listen(server, '127.0.0.1', 0);
  onTestFinished(() => closeServer(server));
  return `http://127.0.0.1:${port}`;
}

/** @param {string} url @param {Record<string, unknown>} overrides */
const config = (url, overrides = {}) => ({ accountUrl: url, authUrl: url, clientId: 'demo-spa', ...overrides });

/**
 * A discovery document agreeing with `config(url)`, whatever the server does at these endpoints.
 * @param {string} url
 */
const documentOf = (url) => ({
  issuer: url,
  authorization_endpoint: `${url}/connect/authorize`,
  token_endpoint: `${url}/connect/token`,
  userinfo_endpoint: `${url}/connect/userinfo`,
  end_session_endpoint: `${url}/logout`,
  code_challenge_methods_supported: ['S256'],
  dpop_signing_alg_values_supported: ['ES256'],
});

describe('check-config', () => {
  test('the local provider agrees with a config.json pointing at it, and takes every request of the app', async () => {
    const idp = await provider();
    const { status, lines } = await checkConfig(configOf(idp));
    expect(lines.filter((line) => !line.startsWith('ok  '))).toEqual([]);
    expect(status).toBe('ok');
    expect(lines.map((line) => line.split(' ')[2])).toEqual([
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'end_session_endpoint',
      'revocation_endpoint',
      'code_challenge_methods_supported',
      'scopes_supported',
      'scopes_supported',
      'scopes_supported',
      'scopes_supported',
      'dpop_signing_alg_values_supported',
      'redirect_uri',
      'end_session_endpoint',
      'CORS',
      'refresh_token',
      'framing:',
    ]);
    expect(lines[3]).toBe(`ok  userinfo_endpoint "${idp.authUrl}/connect/userinfo"`);
    expect(lines.slice(12)).toEqual([
      `ok  redirect_uri "${APP}": the authorization request is taken (HTTP 303)`,
      `ok  end_session_endpoint takes the app's GET (HTTP 200); post_logout_redirect_uri "${APP}" not refused`,
      `ok  CORS for ${APP_ORIGIN}: allowed at token_endpoint, userinfo_endpoint, revocation_endpoint`,
      'ok  refresh_token grant allowed for client "demo-spa" (a made-up token gets invalid_grant: grant request is invalid)',
      "ok  framing: a hidden frame's prompt=none request is answered by a redirect (HTTP 303)",
    ]);
  });

  test('every disagreement is one MISMATCH line', async () => {
    const idp = await provider();
    const { status, lines } = await checkConfig({
      ...configOf(idp),
      accountUrl: `${idp.accountUrl}/`, // a trailing slash is not a mismatch
      issuer: `${idp.accountUrl}/`, // but an issuer is compared verbatim
      authUrl: idp.accountUrl,
      endSessionUrl: `${idp.accountUrl}/session/end`,
      scope: 'openid offline_access',
    });
    expect(status).toBe('mismatch');
    expect(lines.filter((line) => !line.startsWith('ok  '))).toEqual([
      `MISMATCH issuer: config "${idp.accountUrl}/" provider "${idp.accountUrl}"; fix: set "issuer": "${idp.accountUrl}" in config.json`,
      `MISMATCH userinfo_endpoint: config "${idp.accountUrl}/connect/userinfo" provider "${idp.authUrl}/connect/userinfo"`,
      `MISMATCH end_session_endpoint (endSessionUrl): config "${idp.accountUrl}/session/end" provider "${idp.accountUrl}/connect/endsession"`,
      `MISMATCH scopes_supported has offline_access: config "offline_access" provider ["openid","profile","email","service.api"]`,
      // The app's requests go where config.json says: a wrong URL shows in the live checks too.
      `WARN end_session_endpoint not checked: ${idp.accountUrl}/session/end HTTP 404 (see endSessionUrl)`,
      `MISMATCH CORS for ${APP_ORIGIN}: refused at userinfo_endpoint (preflight HTTP 404); fix: allow ${APP_ORIGIN} as a web origin of client "demo-spa" at the provider`,
    ]);
  });

  test('a provider without an issuer, S256, DPoP and the optional endpoints; no redirect URI to probe', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          authorization_endpoint: `${url}/connect/authorize`,
          token_endpoint: `${url}/connect/token`,
          userinfo_endpoint: `${url}/connect/userinfo`,
          code_challenge_methods_supported: ['plain'],
        }),
      );
    });
    const { status, lines } = await checkConfig(
      config(url, { dpop: true, revocationUrl: `${url}/connect/revocation`, endSessionUrl: `${url}/connect/endsession` }),
    );
    expect(status).toBe('mismatch');
    expect(lines).toEqual([
      `MISMATCH issuer: config "${url}" provider (absent); fix: point accountUrl at the provider: its discovery document names no issuer`,
      `ok  authorization_endpoint "${url}/connect/authorize"`,
      `ok  token_endpoint "${url}/connect/token"`,
      `ok  userinfo_endpoint "${url}/connect/userinfo"`,
      `MISMATCH end_session_endpoint (endSessionUrl): config "${url}/connect/endsession" provider (absent)`,
      `MISMATCH revocation_endpoint (revocationUrl): config "${url}/connect/revocation" provider (absent)`,
      'MISMATCH code_challenge_methods_supported has S256: config "S256" provider ["plain"]',
      'ok  scopes_supported not announced; scopes not checked',
      'MISMATCH dpop_signing_alg_values_supported has ES256: config "ES256" provider (absent)',
      "WARN redirect_uri not checked, nor CORS, sign-out and framing: config.json has no redirectUri; give the app's URL with --app-url",
      // This server answers its discovery document to everything, a refresh grant too.
      'WARN refresh_token grant not checked: the token endpoint answers HTTP 200, no OAuth error',
    ]);
  });

  test('a missing, broken, silent or unreachable document is an error, not a report', async () => {
    const discovery = (/** @type {string} */ url) => `${url}/.well-known/openid-configuration`;
    const missing = await serve((_req, res) => res.writeHead(404).end('not here'));
    expect(await checkConfig(config(missing))).toEqual({
      status: 'error',
      lines: [`ERROR ${discovery(missing)}: HTTP 404, not a discovery document`],
    });

    const html = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><p>hi'));
    expect((await checkConfig(config(html))).lines).toEqual([`ERROR ${discovery(html)}: not a JSON object`]);
    const array = await serve((_req, res) => res.writeHead(200).end('[]'));
    expect((await checkConfig(config(array))).lines).toEqual([`ERROR ${discovery(array)}: not a JSON object`]);

    const huge = await serve((_req, res) => res.writeHead(200).end(`{"pad":"${'x'.repeat(600 * 1024)}"}`));
    expect((await checkConfig(config(huge))).lines).toEqual([
      `ERROR ${discovery(huge)}: more than 524288 bytes, not a discovery document`,
    ]);

    const silent = await serve(() => {}); // takes the request, never answers
    expect((await checkConfig(config(silent), { timeoutMs: 200 })).lines).toEqual([
      `ERROR ${discovery(silent)}: no answer within 200 ms`,
    ]);

    const closed = createServer();
    const port = await listen(closed, '127.0.0.1', 0);
    await closeServer(closed);
    const gone = `http://127.0.0.1:${port}`;
    expect(await checkConfig(config(gone))).toEqual({ status: 'error', lines: [`ERROR ${discovery(gone)}: unreachable`] });
  });

  test('a config.json the app would refuse is an error, named as the app names it, before any request', async () => {
    let requests = 0;
    const url = await serve((_req, res) => {
      requests++;
      res.writeHead(404).end();
    });
    const refused = async (/** @type {Record<string, unknown>} */ overrides) => (await checkConfig(config(url, overrides))).lines;
    expect(await refused({ accountUrl: 'not a url' })).toEqual([
      'ERROR config.json: accountUrl must be an https URL (http only for loopback hosts), without credentials or fragment',
    ]);
    // Plain http is for loopback hosts only, in the check as in the app.
    expect(await refused({ authUrl: 'http://auth.example.com' })).toEqual([
      'ERROR config.json: authUrl must be an https URL (http only for loopback hosts), without credentials or fragment',
    ]);
    expect(await refused({ clientId: '' })).toEqual(['ERROR config.json: clientId must be a non-empty string']);
    expect(await refused({ apiOrigins: [`${url}/api`] })).toEqual([
      'ERROR config.json: apiOrigins must list bare origins like https://api.example.com',
    ]);
    expect(await refused({ apis: { [url]: { resource: 'not a url' } } })).toEqual([
      `ERROR config.json: apis entry ${url} must be { resource: an absolute URL without fragment, scope?: text, stepUpScopes?: text }`,
    ]);
    expect(await refused({ dpop: 'yes' })).toEqual(['ERROR config.json: dpop has the wrong type or value']);
    // How long the shared worker keeps the session after the last page: the app's rule, refused here too.
    expect(await refused({ keepSessionMs: -1 })).toEqual(['ERROR config.json: keepSessionMs has the wrong type or value']);
    expect(requests).toBe(0);
  });

  test('the CLI prints the lines and exits 0, 1 or 2', async () => {
    const idp = await provider();
    const ok = await cli(configOf(idp));
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim().split('\n')).toHaveLength(17);
    expect(ok.stdout).toContain(`ok  issuer "${idp.accountUrl}"`);

    const mismatch = await cli({ ...configOf(idp), authUrl: 'http://127.0.0.1:1' });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toContain('MISMATCH userinfo_endpoint');

    const refused = await cli({ ...configOf(idp), accountUrl: 'http://account.example.com' });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^ERROR config.json: accountUrl must be an https URL/);

    const broken = await cli('{ not json');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^ERROR cannot read /);
  });

  test('--app-url is the redirect URI when config.json names none, as the page is in the app', async () => {
    const idp = await provider();
    const { redirectUri, ...withoutRedirectUri } = configOf(idp);
    const named = await cli(withoutRedirectUri, [`--app-url=${redirectUri}#/profile?x=1`]);
    expect(named.code).toBe(0);
    expect(named.stdout).toContain(`ok  redirect_uri "${APP}": the authorization request is taken (HTTP 303)\n`);
    expect(findings(named.stdout)).toEqual([]);

    const unnamed = await cli(withoutRedirectUri);
    expect(unnamed.code).toBe(0);
    expect(findings(unnamed.stdout)).toEqual([
      "WARN redirect_uri not checked, nor CORS, sign-out and framing: config.json has no redirectUri; give the app's URL with --app-url",
    ]);

    expect(await cli(withoutRedirectUri, ['--app-url=app'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'ERROR --app-url must be an absolute URL, got app\n',
    });
    expect((await cli(withoutRedirectUri, ['--app-url'])).stderr).toMatch(/^ERROR .*--app-url/);
  });

  /** Where sessions go without refresh tokens when framing is refused too. */
  const framingRefused = `framing: a hidden frame's prompt=none request gets a page ${APP_ORIGIN} may not frame (HTTP 200, Content-Security-Policy frame-ancestors 'none')`;
  const refreshRefused =
    'refresh_token grant refused for client "demo-spa" (invalid_request: requested grant type is not allowed for this client)';
  /** @type {[string, import('../idp/server.js').IdpOptions, number, (idp: { accountUrl: string }) => string[]][]} */
  const planted = [
    [
      'the redirect URI not registered',
      { redirectUris: [`${APP}elsewhere`], postLogoutRedirectUris: [APP] },
      1,
      () => [
        `MISMATCH redirect_uri "${APP}": the authorization request gets an error page (HTTP 400, invalid_redirect_uri), not a redirect; fix: register "${APP}" as a redirect URI of client "demo-spa" at the provider`,
      ],
    ],
    [
      'the post-logout redirect URI not registered',
      { postLogoutRedirectUris: [`${APP}signed-out`] },
      1,
      () => [
        `MISMATCH post_logout_redirect_uri "${APP}": the end-session endpoint refuses the app's sign-out (HTTP 400, invalid_request); fix: register "${APP}" as a post-logout redirect URI of client "demo-spa" at the provider`,
      ],
    ],
    [
      'no CORS for the app',
      { corsOrigins: [] },
      1,
      () => [
        `MISMATCH CORS for ${APP_ORIGIN}: refused at token_endpoint (preflight HTTP 403), userinfo_endpoint (preflight HTTP 403), revocation_endpoint (POST HTTP 400, Access-Control-Allow-Origin absent); fix: allow ${APP_ORIGIN} as a web origin of client "demo-spa" at the provider`,
      ],
    ],
    [
      'no refresh tokens, the hidden frame allowed',
      { refreshTokens: false },
      0,
      () => [
        `WARN ${refreshRefused}: sessions renew in a hidden frame, which the provider must allow (see framing); fix: allow the refresh_token grant for client "demo-spa" at the provider`,
      ],
    ],
    [
      'GET refused at the end-session endpoint',
      { endSessionGet: false },
      1,
      () => [
        `MISMATCH end_session_endpoint refuses the app's sign-out GET (HTTP 405, Allow: POST); fix: let the provider take GET at its end-session endpoint, or remove "endSessionUrl" from config.json`,
      ],
    ],
    [
      'another issuer',
      { issuer: 'https://issuer.example.test' },
      1,
      ({ accountUrl }) => [
        `MISMATCH issuer: config "${accountUrl}" provider "https://issuer.example.test"; fix: set "issuer": "https://issuer.example.test" in config.json`,
      ],
    ],
    [
      'framing refused, refresh tokens issued',
      { allowFraming: false },
      0,
      () => [
        `WARN ${framingRefused}: a lone reload in Firefox or Safari cannot restore the session; fix: let the provider allow frame-ancestors ${APP_ORIGIN} on its authorization endpoint`,
      ],
    ],
    [
      'framing refused and no refresh tokens',
      { allowFraming: false, refreshTokens: false },
      1,
      () => [
        `WARN ${refreshRefused}: sessions renew in a hidden frame, which the provider must allow (see framing); fix: allow the refresh_token grant for client "demo-spa" at the provider`,
        `MISMATCH ${framingRefused} and no refresh token is issued: sessions cannot renew; fix: allow the refresh_token grant for client "demo-spa" at the provider, or let the provider allow frame-ancestors ${APP_ORIGIN} on its authorization endpoint`,
      ],
    ],
  ];

  test.each(planted)('a provider with %s: that finding alone, and its exit code', async (_name, options, code, expected) => {
    const idp = await provider(options);
    const run = await cli(configOf(idp));
    expect(findings(run.stdout)).toEqual(expected(idp));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(code);
  });

  test('what no oidc-provider answers: headers not allowed, RFC 6749 refusals, GET refused with a 400, SAMEORIGIN', async () => {
    const url = await serve((req, res) => {
      const route = `${req.method} ${new URL(req.url ?? '', 'http://any').pathname}`;
      const cors = { 'Access-Control-Allow-Origin': '*' };
      const json = (/** @type {number} */ status, /** @type {unknown} */ body) =>
        res.writeHead(status, { ...cors, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (route === 'GET /.well-known/openid-configuration') return json(200, documentOf(url));
      if (route === 'GET /connect/authorize' && req.headers['sec-fetch-dest'] === 'iframe') {
        return res.writeHead(200, { 'X-Frame-Options': 'SAMEORIGIN' }).end('<p>Sign in');
      }
      if (route === 'GET /connect/authorize') return res.writeHead(302, { Location: `${url}/login` }).end();
      // A preflight allowing the form's headers only, and a wildcard, which does not cover Authorization.
      if (route === 'OPTIONS /connect/token')
        return res.writeHead(204, { ...cors, 'Access-Control-Allow-Headers': 'content-type' }).end();
      if (route === 'OPTIONS /connect/userinfo')
        return res.writeHead(204, { ...cors, 'Access-Control-Allow-Headers': '*' }).end();
      if (route === 'POST /connect/token') return json(400, { error: 'unsupported_grant_type' });
      if (route === 'POST /logout') return res.writeHead(200).end('<p>Signed out');
      res.writeHead(route === 'GET /logout' ? 400 : 404).end();
    });
    const wrong = config(url, { redirectUri: APP, endSessionUrl: `${url}/logout`, dpop: true });
    const result = await checkConfig(wrong);
    expect(result.lines.filter((line) => !line.startsWith('ok  '))).toEqual([
      `MISMATCH end_session_endpoint refuses the app's sign-out GET (HTTP 400, a POST is taken); fix: let the provider take GET at its end-session endpoint, or remove "endSessionUrl" from config.json`,
      `MISMATCH CORS for ${APP_ORIGIN}: refused at token_endpoint (preflight dpop not in Access-Control-Allow-Headers), userinfo_endpoint (preflight authorization not in Access-Control-Allow-Headers); fix: allow ${APP_ORIGIN} as a web origin of client "demo-spa" at the provider`,
      'WARN refresh_token grant refused for client "demo-spa" (unsupported_grant_type): sessions renew in a hidden frame, which the provider must allow (see framing); fix: allow the refresh_token grant for client "demo-spa" at the provider',
      `MISMATCH framing: a hidden frame's prompt=none request gets a page ${APP_ORIGIN} may not frame (HTTP 200, X-Frame-Options: SAMEORIGIN) and no refresh token is issued: sessions cannot renew; fix: allow the refresh_token grant for client "demo-spa" at the provider, or let the provider allow frame-ancestors ${APP_ORIGIN} on its authorization endpoint`,
    ]);
    expect(result.lines).toContain(`ok  redirect_uri "${APP}": the authorization request is taken (HTTP 302)`);

    // Without the hidden frame (config.json's "hiddenFrame": false) nothing renews a session but a refresh token.
    const withoutFrame = await checkProvider({ ...parseConfig(wrong), hiddenFrame: false }, { timeoutMs: 5000 });
    expect(withoutFrame.slice(-2)).toEqual([
      {
        level: 'mismatch',
        text: 'refresh_token grant refused for client "demo-spa" (unsupported_grant_type) and "hiddenFrame" is false: sessions end with their access token; fix: allow the refresh_token grant for client "demo-spa" at the provider',
      },
      { level: 'ok', text: 'framing not checked: "hiddenFrame" is false, the app never frames the provider' },
    ]);
  });

  test('framing refusals read as browsers read them: frame-ancestors over X-Frame-Options, every policy counts', () => {
    const self = 'https://id.example.com';
    const app = 'https://app.example.com';
    /** @param {Record<string, string>} headers */
    const refusal = (headers, origin = app) => framingRefusal(new Headers(headers), origin, self);
    const csp = (/** @type {string} */ sources) => ({
      'Content-Security-Policy': `default-src 'none'; frame-ancestors ${sources}`,
    });

    expect(refusal({})).toBeUndefined();
    expect(refusal({ 'X-Frame-Options': 'DENY' })).toBe('X-Frame-Options: DENY');
    expect(refusal({ 'X-Frame-Options': 'sameorigin' })).toBe('X-Frame-Options: sameorigin');
    expect(refusal({ 'X-Frame-Options': 'SAMEORIGIN' }, self)).toBeUndefined();
    expect(refusal({ 'X-Frame-Options': 'SAMEORIGIN, ALLOWALL' }, self)).toBe('X-Frame-Options: SAMEORIGIN, ALLOWALL');
    expect(refusal({ 'X-Frame-Options': `ALLOW-FROM ${app}` })).toBeUndefined(); // obsolete: browsers ignore it

    for (const allowing of [app, 'https://*.example.com', 'app.example.com', 'https:', 'http:', '*', `${app}:*`, `${app}/path`]) {
      expect(refusal({ ...csp(`'self' ${allowing}`), 'X-Frame-Options': 'DENY' }), allowing).toBeUndefined();
    }
    for (const refusing of ["'none'", "'self'", 'https://other.example.com', `${app}:8443`, '*.example.org', 'wss:']) {
      expect(refusal(csp(refusing)), refusing).toBe(`Content-Security-Policy frame-ancestors ${refusing}`);
    }
    expect(refusal(csp("'self'"), self)).toBeUndefined();
    // A wildcard takes any http(s) page; a host without a scheme takes the provider's (and its upgrade) only.
    expect(refusal(csp('*'), 'http://localhost:5173')).toBeUndefined();
    expect(refusal(csp('localhost:5173'), 'http://localhost:5173')).toBe(
      'Content-Security-Policy frame-ancestors localhost:5173',
    );
    // Two policies are both enforced.
    expect(refusal({ 'Content-Security-Policy': "frame-ancestors *, frame-ancestors 'self'" })).toBe(
      "Content-Security-Policy frame-ancestors 'self'",
    );
  });
});

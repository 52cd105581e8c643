// check-config against the real local provider and against small loopback
// servers that answer a wrong, missing or broken discovery document.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { describe, expect, onTestFinished, test } from 'vitest';

import { closeServer, listen } from '../idp/http.js';
import { startIdp } from '../idp/server.js';
import { checkConfig } from './check-config.js';

/** A provider for this test, closed when it finishes. */
async function provider() {
  const idp = await startIdp({ quiet: true });
  onTestFinished(() => idp.close());
  return idp;
}

/** @param {Awaited<ReturnType<typeof provider>>} idp */
const configOf = (idp) => ({
  accountUrl: idp.accountUrl,
  authUrl: idp.authUrl,
  clientId: idp.clientId,
  endSessionUrl: `${idp.accountUrl}/connect/endsession`,
  revocationUrl: `${idp.accountUrl}/connect/revocation`,
  dpop: true,
});

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

describe('check-config', () => {
  test('the local provider agrees with a config.json pointing at it', async () => {
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
    ]);
    expect(lines[3]).toBe(`ok  userinfo_endpoint "${idp.authUrl}/connect/userinfo"`);
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
    expect(lines.filter((line) => line.startsWith('MISMATCH'))).toEqual([
      `MISMATCH issuer: config "${idp.accountUrl}/" provider "${idp.accountUrl}"`,
      `MISMATCH userinfo_endpoint: config "${idp.accountUrl}/connect/userinfo" provider "${idp.authUrl}/connect/userinfo"`,
      `MISMATCH end_session_endpoint (endSessionUrl): config "${idp.accountUrl}/session/end" provider "${idp.accountUrl}/connect/endsession"`,
      `MISMATCH scopes_supported has offline_access: config "offline_access" provider ["openid","profile","email","service.api"]`,
    ]);
  });

  test('a provider without S256, DPoP and the optional endpoints', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          issuer: url,
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
      `ok  issuer "${url}"`,
      `ok  authorization_endpoint "${url}/connect/authorize"`,
      `ok  token_endpoint "${url}/connect/token"`,
      `ok  userinfo_endpoint "${url}/connect/userinfo"`,
      `MISMATCH end_session_endpoint (endSessionUrl): config "${url}/connect/endsession" provider (absent)`,
      `MISMATCH revocation_endpoint (revocationUrl): config "${url}/connect/revocation" provider (absent)`,
      'MISMATCH code_challenge_methods_supported has S256: config "S256" provider ["plain"]',
      'ok  scopes_supported not announced; scopes not checked',
      'MISMATCH dpop_signing_alg_values_supported has ES256: config "ES256" provider (absent)',
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
    const dir = await mkdtemp(join(tmpdir(), 'check-config-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const script = fileURLToPath(new URL('./check-config.js', import.meta.url));
    /** @param {unknown} content */
    const run = async (content) => {
      const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
      await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, file], { timeout: 20_000 });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const { code, stdout, stderr } = /** @type {{ code: number, stdout: string, stderr: string }} */ (error);
        return { code, stdout, stderr };
      }
    };

    const ok = await run(configOf(idp));
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim().split('\n')).toHaveLength(12);
    expect(ok.stdout).toContain(`ok  issuer "${idp.accountUrl}"`);

    const mismatch = await run({ ...configOf(idp), authUrl: 'http://127.0.0.1:1' });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toContain('MISMATCH userinfo_endpoint');

    const refused = await run({ ...configOf(idp), accountUrl: 'http://account.example.com' });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^ERROR config.json: accountUrl must be an https URL/);

    const broken = await run('{ not json');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^ERROR cannot read /);
  });
});

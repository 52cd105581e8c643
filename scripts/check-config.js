// Compares a deployment's config.json with what its identity provider announces in
// {accountUrl}/.well-known/openid-configuration, one line per check:
//   npm run check-config -- path/to/config.json
// A file the app itself would refuse (src/config-rules.js) is reported before any request.
// Exit code 0: all agree; 1: a mismatch; 2: config.json or the discovery document unusable.
import { pathToFileURL } from 'node:url';
import { readConfigFile } from './config-file.js';
import { ConfigError, parseConfig, serverEndpoints } from '../src/config-rules.js';

/** The app signs DPoP proofs with ES256 (WebCrypto ECDSA P-256). */
const DPOP_ALG = 'ES256';
/** Discovery documents are small; a bigger answer is not one. */
const MAX_DOCUMENT_BYTES = 512 * 1024;

/**
 * @typedef {object} CheckResult
 * @property {'ok' | 'mismatch' | 'error'} status
 * @property {string[]} lines one per check, or the one reason the checks could not run
 */

/** Endpoint URLs compare after URL normalisation (default port, case of scheme and host). */
const sameUrl = (/** @type {unknown} */ a, /** @type {unknown} */ b) =>
  typeof a === 'string' && typeof b === 'string' && URL.parse(a)?.href === URL.parse(b)?.href;

/**
 * Fetches the discovery document; a failure is the reason, as text.
 * @param {string} url
 * @param {number} timeoutMs
 * @returns {Promise<Record<string, unknown> | string>}
 */
async function fetchDocument(url, timeoutMs) {
  let response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
      headers: { Accept: 'application/json' },
    });
  } catch (error) {
    return error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'unreachable';
  }
  if (!response.ok) {
    await response.body?.cancel();
    return `HTTP ${response.status}, not a discovery document`;
  }
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES) return `more than ${MAX_DOCUMENT_BYTES} bytes, not a discovery document`;
  try {
    const document = JSON.parse(text);
    if (document && typeof document === 'object' && !Array.isArray(document)) return document;
  } catch {
    // Reported below.
  }
  return 'not a JSON object';
}

/**
 * Runs every check of `config` (a parsed config.json) against its provider.
 * @param {unknown} config
 * @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<CheckResult>}
 */
export async function checkConfig(config, { timeoutMs = 10_000 } = {}) {
  // The app's own rules first: a file the app refuses at start-up is not worth comparing.
  let settings;
  try {
    settings = parseConfig(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { status: 'error', lines: [`ERROR config.json: ${error.message}`] };
  }
  const endpoints = serverEndpoints(settings);
  const discoveryUrl = `${settings.accountUrl}/.well-known/openid-configuration`;
  const document = await fetchDocument(discoveryUrl, timeoutMs);
  if (typeof document === 'string') return { status: 'error', lines: [`ERROR ${discoveryUrl}: ${document}`] };

  /** @type {string[]} */
  const lines = [];
  let mismatch = false;
  /** @param {boolean} ok @param {string} name @param {unknown} expected @param {unknown} actual */
  const report = (ok, name, expected, actual) => {
    const show = (/** @type {unknown} */ value) => (value === undefined ? '(absent)' : JSON.stringify(value));
    lines.push(ok ? `ok  ${name} ${show(actual)}` : `MISMATCH ${name}: config ${show(expected)} provider ${show(actual)}`);
    mismatch ||= !ok;
  };
  const list = (/** @type {unknown} */ value) => (Array.isArray(value) ? value : undefined);

  // An issuer identifier is compared verbatim (RFC 8414 §3.3), endpoints as URLs.
  report(document.issuer === endpoints.issuer, 'issuer', endpoints.issuer, document.issuer);
  for (const name of /** @type {const} */ (['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint'])) {
    report(sameUrl(document[name], endpoints[name]), name, endpoints[name], document[name]);
  }
  for (const [name, key] of /** @type {const} */ ([
    ['end_session_endpoint', 'endSessionUrl'],
    ['revocation_endpoint', 'revocationUrl'],
  ])) {
    const expected = endpoints[name];
    if (expected !== undefined) report(sameUrl(document[name], expected), `${name} (${key})`, expected, document[name]);
  }

  const methods = list(document.code_challenge_methods_supported);
  report(methods?.includes('S256') ?? false, 'code_challenge_methods_supported has S256', 'S256', methods);

  const scopesSupported = list(document.scopes_supported);
  if (scopesSupported) {
    for (const wanted of settings.scope.split(' ')) {
      report(scopesSupported.includes(wanted), `scopes_supported has ${wanted}`, wanted, scopesSupported);
    }
  } else {
    lines.push('ok  scopes_supported not announced; scopes not checked');
  }

  if (settings.dpop) {
    const algs = list(document.dpop_signing_alg_values_supported);
    report(algs?.includes(DPOP_ALG) ?? false, `dpop_signing_alg_values_supported has ${DPOP_ALG}`, DPOP_ALG, algs);
  }

  return { status: mismatch ? 'mismatch' : 'ok', lines };
}

/**
 * The command line: reads the config file, prints the lines, returns the exit code.
 * @param {string} path
 */
export async function main(path) {
  const config = readConfigFile(path);
  if (!config) return 2;
  const { status, lines } = await checkConfig(config);
  for (const line of lines) (status === 'error' ? console.error : console.log)(line);
  return { ok: 0, mismatch: 1, error: 2 }[status];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv[2] ?? 'public/config.json');
}

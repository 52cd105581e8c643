// Compares a deployment's config.json with what its identity provider announces in
// {accountUrl}/.well-known/openid-configuration, then sends the provider the app's own requests
// (check-provider.js) for what deployments get wrong most, one line per check:
//   npm run check-config -- path/to/config.json [--app-url=https://app.example.com/]
// --app-url is the page's URL, the redirect URI when config.json names none (as in the app).
// A file the app itself would refuse (src/config-rules.js) is reported before any request.
// Lines: `ok  …` agrees; `WARN …` works at a cost it names, or could not be checked; `MISMATCH …` the
// app will fail here, with config.json's value against the provider's or, from the live checks and
// for the issuer, the fix after `; fix:`. All on stdout; an ERROR line goes to stderr, alone.
// Exit code 0: all agree (warnings included); 1: a mismatch; 2: config.json or the discovery document unusable.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readConfigFile } from './config-file.js';
import { checkProvider, noAnswer, readCapped } from './check-provider.js';
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
  let read;
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
      headers: { Accept: 'application/json' },
    });
    if (!response.ok) {
      await response.body?.cancel();
      return `HTTP ${response.status}, not a discovery document`;
    }
    read = await readCapped(response, MAX_DOCUMENT_BYTES);
  } catch (error) {
    return noAnswer(error, timeoutMs);
  }
  const { text, whole } = read;
  if (!whole) return `more than ${MAX_DOCUMENT_BYTES} bytes, not a discovery document`;
  try {
    const document = JSON.parse(text);
    if (document && typeof document === 'object' && !Array.isArray(document)) return document;
  } catch {
    // Reported below.
  }
  return 'not a JSON object';
}

/** One line per finding, as the file's head describes them. */
const PREFIX = { ok: 'ok  ', warn: 'WARN ', mismatch: 'MISMATCH ' };

/**
 * The discovery document against config.json: one finding per announced value the app relies on.
 * @param {ReturnType<typeof parseConfig>} settings
 * @param {Record<string, unknown>} document
 * @returns {import('./check-provider.js').Finding[]}
 */
function compareDiscovery(settings, document) {
  const endpoints = serverEndpoints(settings);
  /** @type {import('./check-provider.js').Finding[]} */
  const findings = [];
  const show = (/** @type {unknown} */ value) => (value === undefined ? '(absent)' : JSON.stringify(value));
  /** @param {boolean} ok @param {string} name @param {unknown} expected @param {unknown} actual @param {string} [fix] */
  const report = (ok, name, expected, actual, fix) =>
    findings.push(
      ok
        ? { level: 'ok', text: `${name} ${show(actual)}` }
        : { level: 'mismatch', text: `${name}: config ${show(expected)} provider ${show(actual)}${fix ? `; fix: ${fix}` : ''}` },
    );
  const list = (/** @type {unknown} */ value) => (Array.isArray(value) ? value : undefined);

  // An issuer identifier is compared verbatim (RFC 8414 §3.3), endpoints as URLs. The app checks `iss`
  // against config.json's issuer (accountUrl unless set), so that is where the provider's goes.
  const issuerFix =
    typeof document.issuer === 'string'
      ? `set "issuer": ${show(document.issuer)} in config.json`
      : 'point accountUrl at the provider: its discovery document names no issuer';
  report(document.issuer === endpoints.issuer, 'issuer', endpoints.issuer, document.issuer, issuerFix);
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
    findings.push({ level: 'ok', text: 'scopes_supported not announced; scopes not checked' });
  }

  if (settings.dpop) {
    const algs = list(document.dpop_signing_alg_values_supported);
    report(algs?.includes(DPOP_ALG) ?? false, `dpop_signing_alg_values_supported has ${DPOP_ALG}`, DPOP_ALG, algs);
  }
  return findings;
}

/**
 * Runs every check of `config` (a parsed config.json) against its provider: the discovery document,
 * then the live probes.
 * @param {unknown} config
 * @param {{ timeoutMs?: number, appUrl?: string }} [options] appUrl: the page's URL, the redirect URI
 *   when config.json names none
 * @returns {Promise<CheckResult>}
 */
export async function checkConfig(config, { timeoutMs = 10_000, appUrl } = {}) {
  // The app's own rules first: a file the app refuses at start-up is not worth comparing.
  let settings;
  try {
    settings = appUrl === undefined ? parseConfig(config) : parseConfig(config, appUrl);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { status: 'error', lines: [`ERROR config.json: ${error.message}`] };
  }
  const discoveryUrl = `${settings.accountUrl}/.well-known/openid-configuration`;
  const document = await fetchDocument(discoveryUrl, timeoutMs);
  if (typeof document === 'string') return { status: 'error', lines: [`ERROR ${discoveryUrl}: ${document}`] };

  const findings = [...compareDiscovery(settings, document), ...(await checkProvider(settings, { timeoutMs }))];
  return {
    status: findings.some(({ level }) => level === 'mismatch') ? 'mismatch' : 'ok',
    lines: findings.map(({ level, text }) => PREFIX[level] + text),
  };
}

/**
 * The command line: reads the config file, prints the lines, returns the exit code.
 * @param {string[]} args
 */
export async function main(args) {
  let path;
  let appUrl;
  try {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'app-url': { type: 'string' } } });
    if (positionals.length > 1) throw new Error(`one config.json at most, got ${positionals.length} paths`);
    path = positionals[0] ?? 'public/config.json';
    appUrl = values['app-url'];
    if (appUrl !== undefined && !URL.canParse(appUrl)) throw new Error(`--app-url must be an absolute URL, got ${appUrl}`);
  } catch (error) {
    console.error(`ERROR ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const config = readConfigFile(path);
  if (!config) return 2;
  const { status, lines } = await checkConfig(config, { appUrl });
  for (const line of lines) (status === 'error' ? console.error : console.log)(line);
  return { ok: 0, mismatch: 1, error: 2 }[status];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}

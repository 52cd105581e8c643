// The rules of config.json: the app's own (src/config.ts runs them at start-up), which the deployment
// tools apply too (scripts/check-config.js, scripts/security-headers.js), so a file the check passes is
// one the app accepts. Plain JavaScript with JSDoc types: Node runs it as it is, Vite bundles it into
// the app; it imports nothing, so the app never reaches outside src/.

/**
 * @typedef {object} AppConfig
 * @property {string} accountUrl Base URL of /connect/authorize and /connect/token.
 * @property {string} authUrl Base URL of /connect/userinfo (another host).
 * @property {string} clientId
 * @property {string} scope
 * @property {string} redirectUri
 * @property {string} issuer Expected `iss` of authorization responses and ID tokens (RFC 9207, OIDC Core §3.1.3.7).
 * @property {boolean} requireIss
 * @property {string[]} apiOrigins The configured API origins, as bare origins, each once. The allow-list is
 *   `tokenOrigins(config)`: these and the origins of `apis` (userinfo's origin is always allowed).
 * @property {Record<string, ApiConfig>} apis APIs that get a token of their own (RFC 8707), by origin as browsers
 *   write it; empty when none is configured.
 * @property {string} [stepUpScopes] Scopes an origin without an `apis` entry may ask a step-up for, space-separated.
 * @property {string} [apiUrl] What the #/api page calls; its origin must be authUrl's or one of tokenOrigins(config).
 * @property {number} timeoutMs Per-request timeout in milliseconds.
 * @property {string} [endSessionUrl] RP-Initiated Logout endpoint: sign-out also ends the provider's session.
 * @property {string} [revocationUrl] RFC 7009 endpoint: sign-out also revokes the refresh token.
 * @property {boolean} dpop Bind tokens to this page's key (RFC 9449).
 * @property {{ timeoutMs: number, warnMs: number }} [idle] Idle sign-out, from `idleTimeoutMs` and `idleWarnMs`
 *   (both or neither): whole milliseconds, 0 < idleWarnMs < idleTimeoutMs <= 24 h.
 * @property {number} [keepSessionMs] How long the session outlives the app's last open page: whole milliseconds
 *   from 0 to 24 h; the auth module's default (two minutes) without it.
 * @property {boolean} hiddenFrame Renew a session without a refresh token, and restore a lone reload, with a
 *   prompt=none authorization in a hidden frame (default true); the CSP then lets the app frame accountUrl.
 */

/**
 * An API with its own token: obtained with the refresh token for `resource` (RFC 8707 §2.2).
 * @typedef {object} ApiConfig
 * @property {string} resource Its resource indicator, sent as written (the provider compares it verbatim).
 * @property {string} [scope] The scopes its token asks for, space-separated.
 * @property {string} [stepUpScopes] Further scopes it may ask a step-up for (`insufficient_scope`), space-separated.
 */

/**
 * The provider's endpoints, named as in its discovery document (RFC 8414).
 * @typedef {object} ServerEndpoints
 * @property {string} issuer
 * @property {string} authorization_endpoint
 * @property {string} token_endpoint
 * @property {string} userinfo_endpoint
 * @property {string | undefined} end_session_endpoint
 * @property {string | undefined} revocation_endpoint
 */

export const DEFAULT_SCOPE = 'openid profile email service.api';

/** A config.json the app cannot use, naming the offending key. */
export class ConfigError extends Error {
  /**
   * @param {string} key the offending key, or 'config.json' when the file itself could not be used
   * @param {string} problem what is wrong with it, phrased to follow the key
   */
  constructor(key, problem) {
    super(`${key} ${problem}`);
    /** @readonly */
    this.key = key;
    /** @readonly */
    this.problem = problem;
  }
}

/**
 * Loopback hosts may use plain http: the traffic never leaves the machine, and browsers treat them
 * as secure contexts. localhost, *.localhost, 127.0.0.0/8 and [::1], as URL parsing writes them.
 * @param {string} hostname
 * @returns {boolean}
 */
export function isLoopbackHost(hostname) {
  return /^(localhost|.+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(hostname);
}

/**
 * `value` as an absolute https URL (http for loopback hosts only) without credentials or fragment,
 * or a ConfigError naming `key`.
 * @param {string} key
 * @param {unknown} value
 * @returns {URL}
 */
export function secureUrl(key, value) {
  let url;
  try {
    url = new URL(/** @type {string} */ (value));
  } catch {
    // Reported below, with the key's name.
  }
  const { protocol, hostname, username, password, hash } = url ?? {};
  if (
    !(protocol === 'https:' || (protocol === 'http:' && isLoopbackHost(/** @type {string} */ (hostname)))) ||
    username ||
    password ||
    hash
  ) {
    throw new ConfigError(key, 'must be an https URL (http only for loopback hosts), without credentials or fragment');
  }
  return /** @type {URL} */ (url);
}

/**
 * A base URL endpoint paths are appended to: a query would end up in front of the path, and a
 * trailing slash would double the one the path starts with.
 * @param {string} key
 * @param {unknown} value
 * @returns {string} the URL without trailing slashes
 */
export function baseUrl(key, value) {
  const { href, search } = secureUrl(key, value);
  if (search) throw new ConfigError(key, 'must not have a query string');
  return href.replace(/\/+$/, '');
}

/**
 * `entry` as the origin browsers compare, or a ConfigError naming `key` when it is more than an origin.
 * @param {string} key
 * @param {unknown} entry
 * @returns {string}
 */
function bareOrigin(key, entry) {
  const { href, origin } = secureUrl(key, entry);
  // Written as an origin (or with the one slash URL parsing adds): a path here would be ignored.
  if (href !== `${origin}/`) throw new ConfigError(key, 'must list bare origins like https://api.example.com');
  return origin;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `apis` map: bare origins (normalised like apiOrigins, each once) to an absolute `resource` URL
 * without fragment (RFC 8707 §2), an optional `scope` and optional `stepUpScopes` (what else the API
 * may ask a step-up for). Unknown keys in an entry are refused, so a misspelt "scopes" does not
 * silently ask for a token without the scope.
 * @param {unknown} value
 * @returns {Record<string, ApiConfig>}
 */
function parseApis(value) {
  if (value === undefined) return {};
  if (!isObject(value)) throw new ConfigError('apis', 'must map API origins to { resource, scope, stepUpScopes }');
  /** @type {Record<string, ApiConfig>} */
  const apis = {};
  for (const [key, entry] of Object.entries(value)) {
    const origin = bareOrigin('apis', key);
    if (origin in apis) throw new ConfigError('apis', `lists ${origin} twice`);
    const { resource, scope, stepUpScopes, ...unknown } = isObject(entry) ? entry : {};
    if (
      !isText(resource) ||
      !URL.canParse(resource) ||
      resource.includes('#') ||
      !optionalList(scope) ||
      !optionalList(stepUpScopes) ||
      Object.keys(unknown).length
    ) {
      throw new ConfigError(
        'apis',
        `entry ${origin} must be { resource: an absolute URL without fragment, scope?: text, stepUpScopes?: text }`,
      );
    }
    apis[origin] = {
      resource,
      ...(scope !== undefined && { scope: words(scope) }),
      ...(stepUpScopes !== undefined && { stepUpScopes: words(stepUpScopes) }),
    };
  }
  return apis;
}

/**
 * The origins, besides userinfo's, that may receive an access token: each entry of `apiOrigins` and
 * each key of `apis` (an API with a token of its own receives that token), as the bare origins
 * browsers compare, each once. The app's allow-list (authOptions in src/config.ts) and the CSP's
 * connect-src (scripts/security-headers.js) both come from here: the page may connect wherever it may
 * send a token. It only reads: parseConfig refuses an entry that is not a bare origin, naming its key;
 * given a file as read, entries that are not URLs are left out.
 * @param {{ apiOrigins?: unknown, apis?: unknown }} config config.json as read, or as parsed
 * @returns {string[]}
 */
export function tokenOrigins({ apiOrigins, apis }) {
  const urls = [...(Array.isArray(apiOrigins) ? apiOrigins : []), ...Object.keys(isObject(apis) ? apis : {})];
  const origins = urls.filter((url) => URL.canParse(url)).map((url) => new URL(url).origin);
  return [...new Set(origins)].filter((origin) => origin !== 'null');
}

/**
 * A space-separated list as written, with single spaces.
 * @param {string} list
 */
const words = (list) => list.trim().split(/\s+/).join(' ');
/**
 * @param {unknown} list
 * @returns {list is string | undefined}
 */
const optionalList = (list) => list === undefined || isText(list);

/**
 * @param {unknown} value
 * @returns {value is string}
 */
const isText = (value) => typeof value === 'string' && value.trim() !== '' && value.length < 2048;
/**
 * @param {unknown} value
 * @returns {value is boolean}
 */
const isBoolean = (value) => typeof value === 'boolean';
/**
 * Long enough for a slow provider, short enough that a dead one is reported while someone waits.
 * @param {unknown} value
 * @returns {value is number}
 */
const isTimeout = (value) =>
  Number.isInteger(value) && /** @type {number} */ (value) >= 100 && /** @type {number} */ (value) <= 120_000;

/**
 * Whole milliseconds of the idle sign-out: at most a day, as a longer one is no sign-out for being idle.
 * @param {unknown} value
 * @returns {value is number | undefined}
 */
const isIdleMs = (value) =>
  value === undefined || (Number.isInteger(value) && /** @type {number} */ (value) > 0 && /** @type {number} */ (value) <= 864e5);

/**
 * Whole milliseconds the session is kept after the last page: 0 forgets it at once; at most a day, as
 * the auth module allows.
 * @param {unknown} value
 * @returns {value is number | undefined}
 */
const isKeepMs = (value) =>
  value === undefined ||
  (Number.isInteger(value) && /** @type {number} */ (value) >= 0 && /** @type {number} */ (value) <= 864e5);

/**
 * Validates a parsed config.json and fills in the defaults; the first problem is a ConfigError.
 * `appUrl` is the page's own URL: without a configured redirectUri, the page itself (origin and
 * path) is the redirect URI. Outside the browser (scripts/check-config.js) there is no page, and a
 * missing redirectUri stays missing.
 * @overload
 * @param {unknown} raw
 * @param {string} appUrl
 * @returns {AppConfig}
 */
/**
 * @overload
 * @param {unknown} raw
 * @returns {Omit<AppConfig, 'redirectUri'> & { redirectUri?: string }}
 */
/**
 * @param {unknown} raw
 * @param {string} [appUrl]
 * @returns {Omit<AppConfig, 'redirectUri'> & { redirectUri?: string }}
 */
export function parseConfig(raw, appUrl) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('config.json', 'must hold a JSON object');
  const input = /** @type {Record<string, unknown>} */ (raw);
  /**
   * `input[key]`, or `fallback` when it is absent; a value `valid` refuses names the key.
   * @template T
   * @param {string} key
   * @param {(value: unknown) => value is T} valid
   * @param {T} fallback
   * @returns {T}
   */
  const read = (key, valid, fallback) => {
    const value = input[key] === undefined ? fallback : input[key];
    if (!valid(value)) throw new ConfigError(key, 'has the wrong type or value');
    return value;
  };
  /** @param {string} key @param {unknown} value */
  const optionalUrl = (key, value = input[key]) => (value === undefined ? undefined : secureUrl(key, value).href);

  const accountUrl = baseUrl('accountUrl', input.accountUrl);
  const authUrl = baseUrl('authUrl', input.authUrl);
  const page = appUrl && new URL(appUrl);
  // The default is the page itself, which must be a secure context too (WebCrypto needs one for PKCE).
  const redirectUri = optionalUrl('redirectUri', input.redirectUri ?? (page && page.origin + page.pathname));
  // An issuer identifier is compared verbatim, so a configured one is kept exactly as written.
  const issuer = /** @type {string} */ (optionalUrl('issuer') ? input.issuer : accountUrl);
  const clientId = input.clientId;
  if (!isText(clientId)) throw new ConfigError('clientId', 'must be a non-empty string');
  const apis = parseApis(input.apis);
  const stepUpScopes = read('stepUpScopes', optionalList, undefined);
  // As listed, normalised; tokenOrigins() adds those of apis wherever the allow-list is needed.
  const apiOrigins = [...new Set(read('apiOrigins', Array.isArray, []).map((entry) => bareOrigin('apiOrigins', entry)))];
  const timeoutMs = read('idleTimeoutMs', isIdleMs, undefined);
  /**
   * Both or neither, and the warning comes before the sign-out.
   * @param {unknown} value
   * @returns {value is number | undefined}
   */
  const isIdleWarnMs = (value) => isIdleMs(value) && (value === undefined ? timeoutMs === undefined : value < (timeoutMs ?? 0));
  const warnMs = read('idleWarnMs', isIdleWarnMs, undefined);
  const apiUrl = optionalUrl('apiUrl');
  // The page calls it with the token: on userinfo's origin or another that may receive it.
  if (apiUrl && ![new URL(authUrl).origin, ...tokenOrigins({ apiOrigins, apis })].includes(new URL(apiUrl).origin)) {
    throw new ConfigError('apiUrl', 'must be on an origin listed in apiOrigins or apis');
  }
  return {
    accountUrl,
    authUrl,
    clientId,
    scope: words(read('scope', isText, DEFAULT_SCOPE)),
    redirectUri,
    issuer,
    requireIss: read('requireIss', isBoolean, false),
    apiOrigins,
    apis,
    stepUpScopes: stepUpScopes && words(stepUpScopes),
    apiUrl,
    timeoutMs: read('timeoutMs', isTimeout, 15_000),
    endSessionUrl: optionalUrl('endSessionUrl'),
    revocationUrl: optionalUrl('revocationUrl'),
    dpop: read('dpop', isBoolean, false),
    idle: timeoutMs ? { timeoutMs, warnMs: /** @type {number} */ (warnMs) } : undefined,
    keepSessionMs: read('keepSessionMs', isKeepMs, undefined),
    hiddenFrame: read('hiddenFrame', isBoolean, true),
  };
}

/**
 * The provider's endpoints: the interface's fixed paths under the two base URLs, and the optional
 * sign-out endpoints as configured.
 * @param {Pick<AppConfig, 'issuer' | 'accountUrl' | 'authUrl' | 'endSessionUrl' | 'revocationUrl'>} config a parsed config
 * @returns {ServerEndpoints}
 */
export function serverEndpoints(config) {
  return {
    issuer: config.issuer,
    authorization_endpoint: `${config.accountUrl}/connect/authorize`,
    token_endpoint: `${config.accountUrl}/connect/token`,
    userinfo_endpoint: `${config.authUrl}/connect/userinfo`,
    end_session_endpoint: config.endSessionUrl,
    revocation_endpoint: config.revocationUrl,
  };
}

// The runtime configuration: fetched from config.json beside index.html so a deployment can swap it
// without a rebuild, validated before anything else runs, and mapped onto the auth module's options.
import { getContext, setContext } from 'svelte';
import { isLoopbackHost, type AuthOptions } from './lib/auth';

export interface AppConfig {
  /** Base URL of /connect/authorize and /connect/token. */
  accountUrl: string;
  /** Base URL of /connect/userinfo (another host). */
  authUrl: string;
  clientId: string;
  scope: string;
  redirectUri: string;
  /** Expected `iss` of authorization responses and ID tokens (RFC 9207, OIDC Core §3.1.3.7). */
  issuer: string;
  requireIss: boolean;
  /** Every origin that may receive the access token: authUrl's and the configured API origins. */
  apiOrigins: string[];
  /** What the #/api page calls; its origin must be allow-listed. */
  apiUrl?: string;
  /** Per-request timeout in milliseconds. */
  timeoutMs: number;
  /** RP-Initiated Logout endpoint: sign-out also ends the provider's session. */
  endSessionUrl?: string;
  /** RFC 7009 endpoint: sign-out also revokes the refresh token. */
  revocationUrl?: string;
  /** Bind tokens to this page's key (RFC 9449). */
  dpop: boolean;
}

export class ConfigError extends Error {
  constructor(
    /** The offending key, or 'config.json' when the file itself could not be used. */
    readonly key: string,
    readonly problem: string,
  ) {
    super(`${key} ${problem}`);
  }
}

export const DEFAULT_SCOPE = 'openid profile email service.api';

/** An absolute https URL (http for loopback only), without credentials or fragment. */
function checkedUrl(value: unknown, key: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value as string);
  } catch {
    // Reported below with the key's name.
  }
  const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!url || !secure || url.username || url.password || url.hash) {
    throw new ConfigError(key, 'must be an https URL (http only for loopback hosts), without credentials or fragment');
  }
  return url;
}

function optional<T>(raw: Record<string, unknown>, key: string, check: (value: unknown) => boolean): T | undefined {
  if (raw[key] === undefined) return undefined;
  if (!check(raw[key])) throw new ConfigError(key, 'has the wrong type or value');
  return raw[key] as T;
}

const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '' && value.length < 2048;
/** A base URL endpoint paths are appended to: no query, and no trailing slash. */
function baseUrl(value: unknown, key: string): string {
  const url = checkedUrl(value, key);
  if (url.search) throw new ConfigError(key, 'must not have a query string');
  return url.href.replace(/\/+$/, '');
}

/** Validates a parsed config.json; `appUrl` is the page's own URL, for the default redirect URI. */
export function parseConfig(raw: unknown, appUrl: string): AppConfig {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('config.json', 'must hold a JSON object');
  const input = raw as Record<string, unknown>;
  const accountUrl = baseUrl(input.accountUrl, 'accountUrl');
  const authUrl = baseUrl(input.authUrl, 'authUrl');
  const authOrigin = new URL(authUrl).origin;
  const page = new URL(appUrl);
  // The default is the page itself, which must be a secure context too (WebCrypto needs one for PKCE).
  const redirectUri = checkedUrl(input.redirectUri ?? page.origin + page.pathname, 'redirectUri').href;
  // An issuer identifier is compared verbatim, so a configured one is kept exactly as written.
  const issuer = input.issuer === undefined ? accountUrl : (checkedUrl(input.issuer, 'issuer'), input.issuer as string);
  if (!isText(input.clientId)) throw new ConfigError('clientId', 'must be a non-empty string');
  const scope = optional<string>(input, 'scope', isText) ?? DEFAULT_SCOPE;
  const requireIss = optional<boolean>(input, 'requireIss', (v) => typeof v === 'boolean') ?? false;
  const timeoutMs = optional<number>(input, 'timeoutMs', (v) => Number.isInteger(v) && +v! >= 100 && +v! <= 120_000) ?? 15_000;
  const apiOrigins = optional<unknown[]>(input, 'apiOrigins', Array.isArray) ?? [];
  const origins = apiOrigins.map((entry) => {
    const url = checkedUrl(entry, 'apiOrigins');
    if (url.href !== `${url.origin}/`) throw new ConfigError('apiOrigins', 'must list bare origins like https://api.example.com');
    return url.origin;
  });
  const allowed = [...new Set([authOrigin, ...origins])];
  const apiUrl = input.apiUrl === undefined ? undefined : checkedUrl(input.apiUrl, 'apiUrl');
  const endpoint = (key: string) => (input[key] === undefined ? undefined : checkedUrl(input[key], key).href);
  if (apiUrl && !allowed.includes(apiUrl.origin)) throw new ConfigError('apiUrl', 'must be on an origin listed in apiOrigins');
  return {
    accountUrl,
    authUrl,
    clientId: input.clientId as string,
    scope: scope.trim().split(/\s+/).join(' '),
    redirectUri,
    issuer,
    requireIss,
    apiOrigins: allowed,
    apiUrl: apiUrl?.href,
    timeoutMs,
    endSessionUrl: endpoint('endSessionUrl'),
    revocationUrl: endpoint('revocationUrl'),
    dpop: optional<boolean>(input, 'dpop', (v) => typeof v === 'boolean') ?? false,
  };
}

/** Fetches and validates config.json (preloaded by index.html, so this usually costs no round trip). */
export async function loadConfig(appUrl = location.href): Promise<AppConfig> {
  let raw: unknown;
  try {
    // Plain fetch with default credentials, so the <link rel=preload> response is the one used.
    const response = await fetch(new URL('config.json', appUrl), { signal: AbortSignal.timeout(15_000) });
    const text = response.ok ? await response.text() : '';
    raw = text.length < 65_536 ? JSON.parse(text) : undefined;
  } catch {
    // Unreachable, timed out or not JSON: all end in the same message below.
  }
  if (raw === undefined) throw new ConfigError('config.json', 'could not be loaded as JSON');
  return parseConfig(raw, appUrl);
}

/** The interface's endpoints under the two base URLs, as the auth module's options. */
export function authOptions(config: AppConfig): AuthOptions {
  return {
    ...config,
    authorizationEndpoint: `${config.accountUrl}/connect/authorize`,
    tokenEndpoint: `${config.accountUrl}/connect/token`,
    userinfoEndpoint: `${config.authUrl}/connect/userinfo`,
    endSessionEndpoint: config.endSessionUrl,
    revocationEndpoint: config.revocationUrl,
  };
}

const KEY = Symbol('config');

/** Hands the config to every view below the root component. */
export const setAppConfig = (config: AppConfig) => setContext(KEY, config);

/** The config the root component set, for views that need the app's settings (e.g. `apiUrl`). */
export const getAppConfig = (): AppConfig => getContext(KEY);

/** The `context` option of Svelte's mount() and @testing-library's render() for `config`. */
export const configContext = (config: AppConfig): Map<symbol, AppConfig> => new Map([[KEY, config]]);

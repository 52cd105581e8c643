// The runtime configuration: fetched from config.json beside index.html so a deployment can swap it
// without a rebuild, validated before anything else runs, and mapped onto the auth module's options.
import { getContext, setContext } from 'svelte';
import type { AuthOptions } from './lib/auth';
import { isLoopbackHost } from './lib/auth/http';

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

const WRONG = 'has the wrong type or value';
const isText = (value: unknown) => typeof value === 'string' && value.trim() !== '' && value.length < 2048;
const isBoolean = (value: unknown) => typeof value === 'boolean';

/** Validates a parsed config.json; `appUrl` is the page's own URL, for the default redirect URI. */
export function parseConfig(raw: unknown, appUrl: string): AppConfig {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('config.json', 'must hold a JSON object');
  const input = raw as Record<string, unknown>;
  /** `input[key]`, or `fallback` when it is absent; a value `valid` refuses names the key. */
  const read = <T>(key: string, valid: (value: unknown) => unknown, fallback?: T, problem = WRONG): T => {
    const value = input[key] === undefined ? fallback : input[key];
    if (value !== undefined && !valid(value)) throw new ConfigError(key, problem);
    return value as T;
  };
  /** An absolute https URL (http for loopback hosts only), without credentials or fragment. */
  const url = (key: string, value: unknown = input[key]) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(value as string);
    } catch {
      // Reported below with the key's name.
    }
    const { protocol, hostname, username, password, hash } = parsed ?? {};
    if (!(protocol === 'https:' || (protocol === 'http:' && isLoopbackHost(hostname!))) || username || password || hash) {
      throw new ConfigError(key, 'must be an https URL (http only for loopback hosts), without credentials or fragment');
    }
    return parsed!;
  };
  /** A base URL endpoint paths are appended to: no query, and no trailing slash. */
  const base = (key: string) => {
    const { href, search } = url(key);
    if (search) throw new ConfigError(key, 'must not have a query string');
    return href.replace(/\/+$/, '');
  };
  const optionalUrl = (key: string) => (input[key] === undefined ? undefined : url(key).href);

  const accountUrl = base('accountUrl');
  const authUrl = base('authUrl');
  const page = new URL(appUrl);
  // The default is the page itself, which must be a secure context too (WebCrypto needs one for PKCE).
  const redirectUri = url('redirectUri', input.redirectUri ?? page.origin + page.pathname).href;
  // An issuer identifier is compared verbatim, so a configured one is kept exactly as written.
  const issuer = read('issuer', (value) => url('issuer', value), accountUrl);
  const clientId = input.clientId as string;
  if (!isText(clientId)) throw new ConfigError('clientId', 'must be a non-empty string');
  const origins = read<unknown[]>('apiOrigins', Array.isArray, []).map((entry) => {
    const { href, origin } = url('apiOrigins', entry);
    if (href !== `${origin}/`) throw new ConfigError('apiOrigins', 'must list bare origins like https://api.example.com');
    return origin;
  });
  const apiOrigins = [...new Set([new URL(authUrl).origin, ...origins])];
  const apiUrl = optionalUrl('apiUrl');
  if (apiUrl && !apiOrigins.includes(new URL(apiUrl).origin))
    throw new ConfigError('apiUrl', 'must be on an origin listed in apiOrigins');
  return {
    accountUrl,
    authUrl,
    clientId,
    scope: read<string>('scope', isText, DEFAULT_SCOPE).trim().split(/\s+/).join(' '),
    redirectUri,
    issuer,
    requireIss: read('requireIss', isBoolean, false),
    apiOrigins,
    apiUrl,
    timeoutMs: read('timeoutMs', (v) => Number.isInteger(v) && +v! >= 100 && +v! <= 120_000, 15_000),
    endSessionUrl: optionalUrl('endSessionUrl'),
    revocationUrl: optionalUrl('revocationUrl'),
    dpop: read('dpop', isBoolean, false),
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
    server: {
      issuer: config.issuer,
      authorization_endpoint: `${config.accountUrl}/connect/authorize`,
      token_endpoint: `${config.accountUrl}/connect/token`,
      userinfo_endpoint: `${config.authUrl}/connect/userinfo`,
      end_session_endpoint: config.endSessionUrl,
      revocation_endpoint: config.revocationUrl,
    },
  };
}

const KEY = Symbol('config');

/** Hands the config to every view below the root component. */
export const setAppConfig = (config: AppConfig) => setContext(KEY, config);

/** The config the root component set, for views that need the app's settings (e.g. `apiUrl`). */
export const getAppConfig = (): AppConfig => getContext(KEY);

/** The `context` option of Svelte's mount() and @testing-library's render() for `config`. */
export const configContext = (config: AppConfig): Map<symbol, AppConfig> => new Map([[KEY, config]]);

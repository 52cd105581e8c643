// The runtime configuration: fetched from config.json beside index.html so a deployment can swap it
// without a rebuild, and validated before anything else runs.

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

/** Loopback hosts may use plain http: localhost, *.localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|.+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(hostname);
}

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
  };
}

let loaded: AppConfig | undefined;

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
  return (loaded = parseConfig(raw, appUrl));
}

/** The config loadConfig() returned; views run only after it. */
export function currentConfig(): AppConfig {
  if (!loaded) throw new Error('loadConfig() must run first');
  return loaded;
}

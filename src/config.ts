// The runtime configuration: fetched from config.json beside index.html so a deployment can swap it
// without a rebuild, validated before anything else runs, and mapped onto the auth module's options.
import { getContext, setContext } from 'svelte';
import type { AuthOptions, ServerEndpoints } from './lib/auth';
import { ConfigError, parseConfig, serverEndpoints, tokenOrigins, type AppConfig } from './config-rules.js';

// The rules are plain JavaScript, so scripts/check-config.js checks a deployment's file against them too.
export { ConfigError, DEFAULT_SCOPE, parseConfig, tokenOrigins, type AppConfig } from './config-rules.js';

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

/**
 * The interface's endpoints under the two base URLs, as the auth module's options; the token goes to
 * the origins of `tokenOrigins`, the list the CSP's connect-src is made of too.
 */
export function authOptions(config: AppConfig): AuthOptions & { server: ServerEndpoints } {
  return { ...config, apiOrigins: tokenOrigins(config), server: serverEndpoints(config) };
}

const KEY = Symbol('config');

/** Hands the config to every view below the root component. */
export const setAppConfig = (config: AppConfig) => setContext(KEY, config);

/** The config the root component set, for views that need the app's settings (e.g. `apiUrl`). */
export const getAppConfig = (): AppConfig => getContext(KEY);

/** The `context` option of Svelte's mount() and @testing-library's render() for `config`. */
export const configContext = (config: AppConfig): Map<symbol, AppConfig> => new Map([[KEY, config]]);

// Options of the local identity provider from environment variables, shared by
// `npm run idp` (idp/main.js) and `npm run dev` (scripts/dev.mjs).
import { DEFAULT_REDIRECT_URIS } from './server.js';

/**
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {import('./server.js').IdpOptions}
 * @throws {Error} naming the variable when a value is malformed
 */
export function optionsFromEnv(env = process.env) {
  return {
    accountPort: integer(env, 'IDP_ACCOUNT_PORT', 9010, 0, 65535),
    authPort: integer(env, 'IDP_AUTH_PORT', 9011, 0, 65535),
    apiPort: integer(env, 'IDP_API_PORT', 9012, 0, 65535),
    clientId: env.IDP_CLIENT_ID?.trim() || 'demo-spa',
    redirectUris: redirectUris(env),
    accessTokenTtl: integer(env, 'IDP_ACCESS_TOKEN_TTL', 300, 1),
    refreshTokenTtl: integer(env, 'IDP_REFRESH_TOKEN_TTL', 86400, 1),
    dpopNonce: flag(env, 'IDP_DPOP_NONCE'),
    sensitiveMaxAge: integer(env, 'IDP_SENSITIVE_MAX_AGE', 60, 1),
    refreshTokens: flag(env, 'IDP_REFRESH_TOKENS', true),
    allowFraming: flag(env, 'IDP_ALLOW_FRAMING', true),
  };
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {boolean} [fallback] when the variable is unset or empty
 */
function flag(env, name, fallback = false) {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') return fallback;
  if (raw === '0') return false;
  if (raw === '1') return true;
  throw new Error(`${name} must be 1 or 0, got "${raw}"`);
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 * @param {number} fallback
 * @param {number} min
 * @param {number} [max]
 */
function integer(env, name, fallback, min, max = Number.MAX_SAFE_INTEGER) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** @param {NodeJS.ProcessEnv} env */
function redirectUris(env) {
  const raw = env.IDP_REDIRECT_URIS?.trim();
  if (!raw) return [...DEFAULT_REDIRECT_URIS];
  const uris = raw
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean);
  const bad = uris.find((uri) => !/^https?:$/.test(URL.parse(uri)?.protocol ?? ''));
  if (bad !== undefined || uris.length === 0) {
    throw new Error(`IDP_REDIRECT_URIS must be a comma-separated list of http(s) URLs, got "${raw}"`);
  }
  return uris;
}

// The response headers for every server that serves the app: the security headers, plus the
// preconnect hints the sign-in needs. They are generated from config.json at run time (not baked into
// index.html at build time) so a deployment that swaps config.json stays right.
import { isLoopbackHost, tokenOrigins } from '../src/config-rules.js';

/** One year: what HSTS preload lists and scanners ask for at least. */
export const HSTS_MAX_AGE = 31_536_000;

/** @param {unknown} url */
function originOf(url) {
  try {
    return typeof url === 'string' ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The distinct origins of those of `urls` that are URLs.
 * @param {unknown[]} urls
 */
function originsOf(urls) {
  const origins = urls.map(originOf).filter((origin) => origin !== undefined && origin !== 'null');
  return [...new Set(origins)];
}

/**
 * The origins the app may talk to: the identity service's hosts, apiUrl's, and every origin the app
 * may send a token to (tokenOrigins: apiOrigins and the keys of apis), the same list the app's
 * allow-list is made of.
 * @param {Record<string, unknown>} config
 */
export function connectOrigins(config) {
  return originsOf([config.accountUrl, config.authUrl, config.apiUrl, config.revocationUrl, ...tokenOrigins(config)]);
}

/**
 * The hidden frame (the auth module's `hiddenFrame`, on unless config.json turns it off) loads the
 * authorization endpoint on accountUrl in a frame, which comes back to the app's own callback page in
 * that frame: `frame-src` lets the one and the redirect back to 'self' (the frame's every hop is checked),
 * `frame-ancestors 'self'` the other, and no other origin may frame the app. Off, nothing frames and
 * nothing is framed.
 * @param {Record<string, unknown>} config
 */
function frameDirectives(config) {
  const account = originsOf([config.accountUrl]);
  if (config.hiddenFrame === false || account.length === 0) return ["frame-src 'none'", "frame-ancestors 'none'"];
  return [`frame-src 'self' ${account[0]}`, "frame-ancestors 'self'"];
}

/**
 * `Link: rel=preconnect` for the token endpoint's origin (accountUrl) and userinfo's (authUrl), so the
 * callback page opens those connections while it loads instead of after config.json and the token
 * response. `crossorigin`: the app's fetches carry no cookies, and Chromium keeps such requests on
 * separate connections, which only a crossorigin preconnect warms. One more, without `crossorigin`,
 * for accountUrl: the top-level navigation to the authorization endpoint (a sign-in, or the
 * prompt=none restore after a reload) carries the provider's cookies and uses that other pool.
 * @param {Record<string, unknown>} config
 */
function preconnectLink(config) {
  const links = originsOf([config.accountUrl, config.authUrl]).map((origin) => `<${origin}>; rel=preconnect; crossorigin`);
  for (const account of originsOf([config.accountUrl])) links.push(`<${account}>; rel=preconnect`);
  return links.join(', ');
}

/**
 * The `Strict-Transport-Security` value for an app served from `appOrigin`, or undefined when that
 * is not https on a non-loopback host: browsers ignore the header over http (RFC 6797 §8.1), and on
 * localhost it would pin every other local server of the developer's to https.
 * @param {string | undefined} appOrigin the origin (or any URL) the app is served from
 * @param {{ includeSubDomains?: boolean }} [options] includeSubDomains: every subdomain is https-only too
 * @returns {string | undefined}
 */
export function strictTransportSecurity(appOrigin, { includeSubDomains = false } = {}) {
  if (appOrigin === undefined) return undefined;
  const url = URL.parse(appOrigin);
  if (!url) throw new TypeError(`appOrigin must be an absolute URL, got ${JSON.stringify(appOrigin)}`);
  if (url.protocol !== 'https:' || isLoopbackHost(url.hostname)) return undefined;
  return `max-age=${HSTS_MAX_AGE}${includeSubDomains ? '; includeSubDomains' : ''}`;
}

/**
 * @typedef {object} HeaderOptions
 * @property {boolean} [dev] loosens exactly what Vite's dev server needs: injected <style> tags and its HMR websocket
 * @property {string} [appOrigin] the origin the app is served from, e.g. https://app.example.com; when it is https
 *   (and not a loopback host), `Strict-Transport-Security: max-age=31536000` is sent. Without it, no HSTS: the dev,
 *   preview and test servers are http on loopback.
 * @property {{ includeSubDomains?: boolean }} [hsts] adds `includeSubDomains` to that header; only with an https appOrigin
 */

/**
 * Content-Security-Policy and friends for the app's pages, plus the preconnect `Link` and, for an
 * https `appOrigin`, HSTS.
 * @param {Record<string, unknown>} config a parsed config.json, valid or not (a broken one still gets the strictest policy)
 * @param {HeaderOptions} [options]
 * @returns {Record<string, string>}
 */
export function securityHeaders(config, { dev = false, appOrigin, hsts } = {}) {
  const connect = ["'self'", ...connectOrigins(config), ...(dev ? ['ws:'] : [])];
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    // The auth module's shared worker (src/lib/auth/host/worker.ts), a script of the app's own origin.
    // Without the directive it falls back to script-src; named, it stays allowed if script-src changes.
    // The worker is governed by the policy its own script is served with (CSP Level 3): this one, as
    // every response gets these headers. So connect-src below covers the token, userinfo and revocation
    // requests the worker makes, and script-src 'self' what its script imports.
    "worker-src 'self'",
    `style-src 'self'${dev ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    // No form of the app goes anywhere: sign-out leaves for the provider by location.replace (a GET),
    // which form-action does not govern.
    "form-action 'none'",
    ...frameDirectives(config),
  ].join('; ');
  const link = preconnectLink(config);
  const transport = strictTransportSecurity(appOrigin, hsts);
  return {
    'Content-Security-Policy': csp,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
    ...(transport ? { 'Strict-Transport-Security': transport } : {}),
    // On every response, like the rest: browsers act on it only for documents, and one header set
    // keeps every server (and the nginx snippet) simple; HTTP/2 header compression makes repeats free.
    ...(link ? { Link: link } : {}),
  };
}

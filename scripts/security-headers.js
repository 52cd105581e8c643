// The response headers for every server that serves the app: the security headers, plus the
// preconnect hints the sign-in needs. They are generated from config.json at run time (not baked into
// index.html at build time) so a deployment that swaps config.json stays right.

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
 * The origins the app may talk to: its own, the identity service's two hosts and the configured APIs.
 * @param {Record<string, unknown>} config
 */
export function connectOrigins(config) {
  const apiOrigins = Array.isArray(config.apiOrigins) ? config.apiOrigins : [];
  return originsOf([config.accountUrl, config.authUrl, config.apiUrl, config.revocationUrl, ...apiOrigins]);
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
 * Content-Security-Policy and friends for the app's pages, plus the preconnect `Link`.
 * `dev` loosens exactly what Vite's dev server needs: injected <style> tags and its HMR websocket.
 * @param {Record<string, unknown>} config
 * @param {{ dev?: boolean }} [options]
 * @returns {Record<string, string>}
 */
export function securityHeaders(config, { dev = false } = {}) {
  const connect = ["'self'", ...connectOrigins(config), ...(dev ? ['ws:'] : [])];
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${dev ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const link = preconnectLink(config);
  return {
    'Content-Security-Policy': csp,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
    // On every response, like the rest: browsers act on it only for documents, and one header set
    // keeps every server (and the nginx snippet) simple; HTTP/2 header compression makes repeats free.
    ...(link ? { Link: link } : {}),
  };
}

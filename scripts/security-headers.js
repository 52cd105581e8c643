// The security headers for every server that serves the app. They are generated from config.json at
// run time (not baked into index.html at build time) so a deployment that swaps config.json stays right.

/** @param {unknown} url */
function originOf(url) {
  try {
    return typeof url === 'string' ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The origins the app may talk to: its own, the identity service's two hosts and the configured APIs.
 * @param {Record<string, unknown>} config
 */
export function connectOrigins(config) {
  const apiOrigins = Array.isArray(config.apiOrigins) ? config.apiOrigins : [];
  const origins = [config.accountUrl, config.authUrl, config.apiUrl, ...apiOrigins].map(originOf);
  return [...new Set(origins.filter((origin) => origin !== undefined && origin !== 'null'))];
}

/**
 * Content-Security-Policy and friends for the app's pages.
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
  return {
    'Content-Security-Policy': csp,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  };
}

// The generated headers: the preconnect Link the sign-in relies on, a CSP that stays as strict as it
// is (no form of the app goes anywhere), and HSTS where the app is served over https.
// The nginx snippet carrying them is tested in nginx-headers.test.js.
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.js';

const config = {
  accountUrl: 'https://account.example.com/tenant',
  authUrl: 'https://auth.example.com:8443/',
  clientId: 'spa',
  apiOrigins: ['https://api.example.com'],
  apiUrl: 'https://api.example.com/v1/greeting',
};

/** The CSP's connect-src directive for `config`. @param {Record<string, unknown>} config */
const connectSrc = (config) => {
  const csp = securityHeaders(config)['Content-Security-Policy'];
  return csp.split('; ').find((directive) => directive.startsWith('connect-src '));
};

describe('securityHeaders', () => {
  it('asks for credential-less preconnects to the token and userinfo origins, and a credentialed one for the authorize navigation', () => {
    expect(securityHeaders(config).Link).toBe(
      '<https://account.example.com>; rel=preconnect; crossorigin, <https://auth.example.com:8443>; rel=preconnect; crossorigin, ' +
        '<https://account.example.com>; rel=preconnect',
    );
  });

  it('names a shared origin once, and leaves out what is not a URL', () => {
    const shared = { accountUrl: 'https://id.example.com/a', authUrl: 'https://id.example.com/b' };
    expect(securityHeaders(shared).Link).toBe(
      '<https://id.example.com>; rel=preconnect; crossorigin, <https://id.example.com>; rel=preconnect',
    );
    expect(securityHeaders({ accountUrl: 'not a url', authUrl: 42 })).not.toHaveProperty('Link');
  });

  it('keeps the CSP exactly as strict', () => {
    expect(securityHeaders(config)['Content-Security-Policy']).toBe(
      "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self' https://account.example.com https://auth.example.com:8443 https://api.example.com; " +
        "manifest-src 'self'; base-uri 'none'; object-src 'none'; form-action 'none'; " +
        "frame-src 'self' https://account.example.com; frame-ancestors 'self'",
    );
  });

  it("frames only the identity service's authorization origin, and lets only the app frame itself (the hidden frame)", () => {
    const csp = (/** @type {Record<string, unknown>} */ more) =>
      securityHeaders({ ...config, ...more })['Content-Security-Policy'];
    expect(csp({ hiddenFrame: true })).toMatch(/; frame-src 'self' https:\/\/account\.example\.com; frame-ancestors 'self'$/);
    // Turned off: nothing frames, nothing is framed.
    expect(csp({ hiddenFrame: false })).toMatch(/; frame-src 'none'; frame-ancestors 'none'$/);
    // No account origin to name (a broken file): the strictest.
    expect(csp({ accountUrl: 'not a url' })).toMatch(/; frame-src 'none'; frame-ancestors 'none'$/);
  });

  it('lets the page connect to every origin the app may send a token to: those of apiOrigins and of apis', () => {
    // An API with a token of its own, listed only under apis: the app sends it tokens, so the CSP lets it through.
    const apis = { 'HTTPS://Orders.Example.com:443/': { resource: 'https://orders.example.com', scope: 'orders.read' } };
    expect(connectSrc({ ...config, apis })).toBe(
      "connect-src 'self' https://account.example.com https://auth.example.com:8443 https://api.example.com https://orders.example.com",
    );
    const { apiOrigins: _none, ...apisOnly } = { ...config, apiUrl: undefined, apis };
    expect(connectSrc(apisOnly)).toBe(
      "connect-src 'self' https://account.example.com https://auth.example.com:8443 https://orders.example.com",
    );
  });

  it('leaves out what is not a URL in apiOrigins and apis, and what is neither a list nor a map', () => {
    const { apiUrl: _none, ...bare } = config;
    const odd = {
      apiOrigins: ['not a url', 42, null, 'https://api.example.com/v1', 'javascript:alert(1)'],
      apis: { 'not a url': {}, 'https://orders.example.com/x': {} },
    };
    expect(connectSrc({ ...bare, ...odd })).toBe(
      "connect-src 'self' https://account.example.com https://auth.example.com:8443 https://api.example.com https://orders.example.com",
    );
    for (const wrong of [
      { apiOrigins: 'https://api.example.com', apis: null },
      { apiOrigins: {}, apis: ['https://orders.example.com'] },
    ]) {
      expect(connectSrc({ ...bare, ...wrong }), JSON.stringify(wrong)).toBe(
        "connect-src 'self' https://account.example.com https://auth.example.com:8443",
      );
    }
  });

  it('lets the app reach a revocation endpoint on a host of its own, but not the end-session endpoint (a form POST, not a fetch)', () => {
    const withLogout = {
      ...config,
      revocationUrl: 'https://revoke.example.com/r',
      endSessionUrl: 'https://logout.example.com/e',
    };
    const directives = securityHeaders(withLogout)['Content-Security-Policy'].split('; ');
    const connect = directives.find((directive) => directive.startsWith('connect-src '));
    expect(connect).toContain(' https://revoke.example.com');
    expect(connect).not.toContain('logout.example.com');
  });
});

describe('the shared worker', () => {
  const withRevocation = { ...config, revocationUrl: 'https://revoke.example.com/r' };
  const csp = securityHeaders(withRevocation)['Content-Security-Policy'].split('; ');
  /** @param {string} name */
  const directive = (name) => csp.find((directive) => directive.startsWith(`${name} `));

  it("may be started from the app's own origin only, and its script may import only the app's scripts", () => {
    expect(directive('worker-src')).toBe("worker-src 'self'");
    expect(directive('script-src')).toBe("script-src 'self'");
  });

  it('may reach the token, userinfo and revocation endpoints under the policy its own script is served with', () => {
    // The worker's script gets these same headers, and that response's CSP is the one the worker runs under.
    expect(directive('connect-src')?.split(' ')).toEqual(
      expect.arrayContaining(['https://account.example.com', 'https://auth.example.com:8443', 'https://revoke.example.com']),
    );
  });
});

describe('form-action', () => {
  /** @param {Record<string, unknown>} config */
  const formAction = (config) => {
    const csp = securityHeaders(config)['Content-Security-Policy'];
    return csp.split('; ').filter((directive) => directive.startsWith('form-action'));
  };

  it("is 'none' with or without an end-session endpoint: sign-out leaves by a GET navigation, not a form", () => {
    for (const endSessionUrl of [
      undefined,
      'https://LOGOUT.example.com:443/connect/endsession?ui=1',
      'http://localhost:9010/connect/endsession',
      'not a url',
      42,
      'http://logout.example.com/e',
      'javascript:alert(1)',
      'https://u:p@logout.example.com/',
    ]) {
      expect(formAction({ ...config, endSessionUrl }), String(endSessionUrl)).toEqual(["form-action 'none'"]);
    }
  });
});

describe('Strict-Transport-Security', () => {
  it('is sent for an app served over https, for a year', () => {
    const headers = securityHeaders(config, { appOrigin: 'https://app.example.com' });
    expect(headers['Strict-Transport-Security']).toBe('max-age=31536000');
    expect(securityHeaders(config, { appOrigin: 'https://app.example.com/spa/index.html' })['Strict-Transport-Security']).toBe(
      'max-age=31536000',
    );
  });

  it('covers the subdomains only when asked to', () => {
    const headers = securityHeaders(config, { appOrigin: 'https://app.example.com', hsts: { includeSubDomains: true } });
    expect(headers['Strict-Transport-Security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('is not sent by servers that are http, or https on loopback, or that do not say where the app is served', () => {
    for (const options of [
      {},
      { dev: true },
      { dev: false },
      { appOrigin: 'http://app.example.com', hsts: { includeSubDomains: true } },
      { appOrigin: 'http://localhost:5173' },
      { appOrigin: 'https://localhost:5173' },
      { appOrigin: 'https://127.0.0.1:4173' },
    ]) {
      expect(securityHeaders(config, options), JSON.stringify(options)).not.toHaveProperty('Strict-Transport-Security');
    }
  });

  it('refuses an appOrigin that is not a URL rather than silently sending no HSTS', () => {
    expect(() => securityHeaders(config, { appOrigin: 'app.example.com' })).toThrow(/appOrigin must be an absolute URL/);
  });
});

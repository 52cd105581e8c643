// The generated headers: the preconnect Link the sign-in relies on, a CSP that stays as strict as it
// is, and the nginx snippet carrying both.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.js';

const config = {
  accountUrl: 'https://account.example.com/tenant',
  authUrl: 'https://auth.example.com:8443/',
  clientId: 'spa',
  apiOrigins: ['https://api.example.com'],
  apiUrl: 'https://api.example.com/v1/greeting',
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
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self' https://account.example.com https://auth.example.com:8443 https://api.example.com; " +
        "manifest-src 'self'; base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it('lets the app reach a revocation endpoint on a host of its own, and nothing for the end-session page (a navigation)', () => {
    const withLogout = {
      ...config,
      revocationUrl: 'https://revoke.example.com/r',
      endSessionUrl: 'https://logout.example.com/e',
    };
    const csp = securityHeaders(withLogout)['Content-Security-Policy'];
    expect(csp).toContain(' https://revoke.example.com');
    expect(csp).not.toContain('logout.example.com');
  });
});

describe('npm run headers', () => {
  it('prints every header, the preconnect Link included, as nginx add_header lines', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'headers-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(config));
    const script = fileURLToPath(new URL('./nginx-headers.js', import.meta.url));
    const output = execFileSync(process.execPath, [script, file], { encoding: 'utf8', timeout: 10_000 });
    for (const [name, value] of Object.entries(securityHeaders(config))) {
      expect(output).toContain(`add_header ${name} "${value}" always;\n`);
    }
    expect(output).toContain('add_header Link "<https://account.example.com>; rel=preconnect; crossorigin, <https://auth');
  });
});

// The test server must behave like a careful static host, or the browser tests would prove nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveApp, serveApps, type AppServer, type AppsServer } from '../support/static-server';

/** A raw GET, so the path reaches the server exactly as written (fetch would normalise `..`). */
function rawGet(url: string, rawPath: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: rawPath }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

describe('static test server', () => {
  let tmp: string;
  let app: AppServer;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'static-server-'));
    await mkdir(path.join(tmp, 'dist/assets'), { recursive: true });
    await writeFile(path.join(tmp, 'secret.txt'), 'outside the root');
    await writeFile(path.join(tmp, 'dist/index.html'), '<!doctype html><title>t</title>');
    await writeFile(path.join(tmp, 'dist/assets/app-1234.js'), 'export {}');
    app = await serveApp({ dir: path.join(tmp, 'dist') });
    app.setConfig({ accountUrl: 'http://localhost:1', authUrl: 'http://127.0.0.1:2', clientId: 'x' });
  });
  afterAll(async () => {
    await app?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('serves index.html at / with security headers and no caching', async () => {
    expect(app.url).toMatch(/^http:\/\/localhost:\d+\/$/);
    const res = await fetch(app.url + '?code=abc&state=xyz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain('http://127.0.0.1:2');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('serves the in-memory config.json, cached for five minutes', async () => {
    const res = await fetch(app.url + 'config.json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('max-age=300');
    expect(await res.json()).toEqual({ accountUrl: 'http://localhost:1', authUrl: 'http://127.0.0.1:2', clientId: 'x' });
  });

  it('serves assets with their content type', async () => {
    const res = await fetch(app.url + 'assets/app-1234.js');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBeTruthy();
  });

  it('answers 404 for unknown paths and directories, 405 for other methods', async () => {
    expect((await fetch(app.url + 'nope.js')).status).toBe(404);
    expect((await fetch(app.url + 'assets/')).status).toBe(404);
    expect((await fetch(app.url, { method: 'POST' })).status).toBe(405);
  });

  it.each(['/../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/assets/..%5c..%5csecret.txt', '/%00'])(
    'does not escape its directory: %s',
    async (rawPath) => {
      const res = await rawGet(app.url, rawPath);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('outside the root');
    },
  );
});

describe('static test server with apps at sub-paths', () => {
  let tmp: string;
  let server: AppsServer;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'static-server-'));
    await mkdir(path.join(tmp, 'dist/assets'), { recursive: true });
    await writeFile(path.join(tmp, 'secret.txt'), 'outside the root');
    await writeFile(path.join(tmp, 'dist/index.html'), '<!doctype html><title>t</title>');
    await writeFile(path.join(tmp, 'dist/assets/app-1234.js'), 'export {}');
    server = await serveApps(['/a/', '/b/'], { dir: path.join(tmp, 'dist') });
    server.apps['/a/'].setConfig({ accountUrl: 'http://localhost:1', authUrl: 'http://127.0.0.1:2', clientId: 'a' });
    server.apps['/b/'].setConfig({ accountUrl: 'http://localhost:3', authUrl: 'http://127.0.0.1:4', clientId: 'b' });
  });
  afterAll(async () => {
    await server?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('serves each path its own config.json and the CSP made from it', async () => {
    expect(server.apps['/a/'].url).toBe(server.origin + '/a/');
    const a = await fetch(server.apps['/a/'].url);
    const b = await fetch(server.apps['/b/'].url + '?code=abc&state=xyz');
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await a.text()).toContain('<title>t</title>');
    expect(a.headers.get('content-security-policy')).toContain('http://127.0.0.1:2');
    expect(a.headers.get('content-security-policy')).not.toContain('http://127.0.0.1:4');
    expect(b.headers.get('content-security-policy')).toContain('http://127.0.0.1:4');
    expect(b.headers.get('content-security-policy')).not.toContain('http://127.0.0.1:2');
    expect(await (await fetch(server.apps['/a/'].url + 'config.json')).json()).toMatchObject({ clientId: 'a' });
    expect(await (await fetch(server.apps['/b/'].url + 'config.json')).json()).toMatchObject({ clientId: 'b' });
  });

  it('serves the built files under each path, and nothing outside them', async () => {
    const asset = await fetch(server.apps['/b/'].url + 'assets/app-1234.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const outside of ['/', '/index.html', '/config.json', '/assets/app-1234.js', '/c/', '/a']) {
      expect((await fetch(server.origin + outside)).status, outside).toBe(404);
    }
  });

  it.each(['/a/../secret.txt', '/a/..%2fsecret.txt', '/a/%2e%2e/secret.txt', '/b/..%2f..%2fsecret.txt', '/a/..%2fb/config.json'])(
    'does not escape its directory nor reach another app’s config: %s',
    async (rawPath) => {
      const res = await rawGet(server.origin + '/', rawPath);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('outside the root');
    },
  );
});

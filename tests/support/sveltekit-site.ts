// A built path-routed site (the SvelteKit example's examples/sveltekit/build by default) on an ephemeral
// loopback port, served the way a static host serves it: the file, else the prerendered page (`/orders`
// -> orders.html), else the SPA fallback page. Its runtime config.json is served from memory, so each
// test run points the one build at its own identity provider without writing into the build.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, resolveInside, serveOnLoopback, TYPES } from './static-server';

export const exampleDir = path.join(repoRoot, 'examples/sveltekit');
export const exampleBuild = path.join(exampleDir, 'build');

export interface Site {
  /** 'http://localhost:PORT/' */
  url: string;
  setConfig(config: Record<string, unknown>): void;
  close(): Promise<void>;
}

/**
 * Throws with the command to run when the build is missing, or older than the packed library it
 * should contain: the example installs a copy of package/, so a stale build would test old code.
 */
export function assertExampleBuilt(): void {
  const index = path.join(exampleBuild, 'index.html');
  const rebuild = 'run `npm run package`, then `cd examples/sveltekit && npm ci && npm run build` (npm test does this)';
  if (!existsSync(index)) throw new Error(`${index} not found: ${rebuild}`);
  const packed = packedLibrary();
  if (statSync(packed).mtimeMs > statSync(index).mtimeMs) {
    throw new Error(`examples/sveltekit/build is older than package/: ${rebuild}`);
  }
}

/** The entry of the packed library (package/) that a Svelte bundler takes, by the package's exports map. */
export function packedLibrary(): string {
  const manifest = path.join(repoRoot, 'package/package.json');
  const missing = 'package/ holds no packed library: run `npm run package` first (npm test does this)';
  if (!existsSync(manifest)) throw new Error(missing);
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { svelte: string }> };
  const entry = path.join(repoRoot, 'package', exports['.'].svelte);
  if (!existsSync(entry)) throw new Error(missing);
  return entry;
}

/** The file a static host would answer `pathname` with, or null when it would escape root. */
async function fileFor(root: string, pathname: string, fallbackPage: string): Promise<string | null> {
  const base = resolveInside(root, pathname);
  if (!base) return null;
  // A missing asset is a 404, as on a real host; only page paths fall back to the SPA shell.
  const fallback = path.extname(base) ? [] : [path.join(root, fallbackPage)];
  for (const candidate of [base, `${base}.html`, path.join(base, 'index.html'), ...fallback]) {
    if ((await stat(candidate).catch(() => null))?.isFile()) return candidate;
  }
  return null;
}

/** Serves `root`; a page path that matches no file gets `fallbackPage` (adapter-static's 200.html, or a Vite app's index.html). */
export async function serveSite(root = exampleBuild, fallbackPage = '200.html'): Promise<Site> {
  let config: Record<string, unknown> = {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, type: string, body: string | Buffer, cache = 'no-store') => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': cache });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain; charset=utf-8', 'Method Not Allowed\n');
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/config.json') return send(200, TYPES['.json'], JSON.stringify(config));
    const file = await fileFor(root, pathname, fallbackPage);
    if (!file) return send(404, 'text/plain; charset=utf-8', 'Not Found\n');
    // SvelteKit's hashed assets never change; pages are always revalidated.
    const cache = pathname.startsWith('/_app/immutable/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    send(200, TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream', await readFile(file), cache);
  }

  const server = await serveOnLoopback(handle);
  return {
    ...server,
    setConfig(next) {
      config = { ...next };
    },
  };
}

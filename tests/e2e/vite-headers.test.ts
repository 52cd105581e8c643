// Issue 4: the dev and preview servers send the CSP built from the config.json they serve.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { securityHeaders } from '../../scripts/security-headers.js';
import { repoRoot } from '../support/static-server';

let server: ChildProcess | undefined;
afterEach(() => {
  server?.kill();
  server = undefined;
});

/** Starts `vite <mode>` on an ephemeral loopback port and resolves with its URL once it listens. */
function startVite(mode: 'dev' | 'preview'): Promise<string> {
  const args = ['node_modules/vite/bin/vite.js', ...(mode === 'preview' ? ['preview'] : []), '--port', '0', '--no-strictPort'];
  server = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, NO_COLOR: '1' } });
  const child = server;
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(output)?.[0];
      if (url) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`vite ${mode} exited with ${code}: ${output}`)));
  });
}

describe('vite servers send the security headers', () => {
  it.each([
    ['preview', 'dist/config.json', false],
    ['dev', 'public/config.json', true],
  ] as const)('%s', async (mode, configPath, dev) => {
    const url = await startVite(mode);
    const config = JSON.parse(await readFile(`${repoRoot}/${configPath}`, 'utf8'));
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    for (const [name, value] of Object.entries(securityHeaders(config, { dev }))) {
      expect(response.headers.get(name), name).toBe(value);
    }
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self' http://localhost:9010");
  });
});

#!/usr/bin/env node
// `npm run dev`: the local identity provider (in this process) and the Vite dev
// server (child process) together. Ctrl-C or SIGTERM stops both; if either one
// dies, the other is stopped and the exit code is non-zero.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { optionsFromEnv } from '../idp/env.js';
import { startIdp } from '../idp/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** How long Vite gets to exit before it is killed. */
const KILL_AFTER_MS = 5000;

/** @param {unknown} error */
const message = (error) => (error instanceof Error ? error.message : String(error));

/** @type {import('../idp/server.js').Idp} */
let idp;
try {
  idp = await startIdp(optionsFromEnv());
} catch (error) {
  console.error(`dev: identity provider could not start: ${message(error)}`);
  process.exit(1);
}

// Extra arguments go to Vite (e.g. `npm run dev -- --open`).
const vite = spawn(process.execPath, ['node_modules/vite/bin/vite.js', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
const viteExited = new Promise((resolve) => {
  vite.once('exit', (code, signal) => resolve({ code, signal }));
});

let stopping = false;

/**
 * Stops both and exits with `exitCode`. Safe to call more than once.
 * @param {number} exitCode
 */
async function shutdown(exitCode) {
  if (stopping) return;
  stopping = true;
  if (vite.exitCode === null && vite.signalCode === null) {
    vite.kill('SIGTERM');
    const timer = setTimeout(() => vite.kill('SIGKILL'), KILL_AFTER_MS);
    await viteExited;
    clearTimeout(timer);
  }
  await idp.close().catch((error) => console.error(`dev: closing the identity provider failed: ${message(error)}`));
  process.exit(exitCode);
}

// A requested stop is a clean stop. On Ctrl-C the terminal signals Vite too.
process.once('SIGINT', () => shutdown(0));
process.once('SIGTERM', () => shutdown(0));

vite.once('error', (error) => {
  console.error(`dev: could not run Vite: ${message(error)}`);
  void shutdown(1);
});
void viteExited.then(({ code, signal }) => {
  if (stopping) return;
  // Ctrl-C reaches Vite (same process group) possibly before our own handler.
  if (signal === 'SIGINT') return void shutdown(0);
  console.error(`dev: Vite exited (${signal ?? `code ${code}`}); stopping the identity provider`);
  void shutdown(code || 1);
});

// The identity provider runs in this process: if it crashes, take Vite down too
// instead of leaving an orphaned dev server behind.
process.on('uncaughtException', (error) => {
  console.error('dev: identity provider crashed', error);
  void shutdown(1);
});
process.on('unhandledRejection', (error) => {
  console.error('dev: identity provider crashed', error);
  void shutdown(1);
});

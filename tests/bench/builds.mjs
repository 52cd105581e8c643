// The builds an A/B run compares, each with the security-headers module of the commit it was built
// from: a change to the headers (CSP, preconnect Link) changes the sign-in's timing as much as a change
// to the bundle does, so a build served with the other side's headers would be measured wrongly.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * @typedef {object} Build
 * @property {string} label what the report calls it
 * @property {string} dir the built app (index.html and assets/)
 * @property {string} headers absolute path of the scripts/security-headers.js it is served with
 */

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {string} cwd
 * @returns {string} stdout, trimmed
 */
function run(cmd, args, cwd) {
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stderr || result.stdout}`);
  }
  return result.stdout.trim();
}

/**
 * A dist folder as given with --a/--b. Its headers are those of the checkout it sits in (DIR/..), the
 * usual layout; a folder copied elsewhere falls back to this checkout's, and the report says which.
 * @param {string} root this checkout
 * @param {string} dir
 * @param {string} label
 * @returns {Build}
 */
export function builtFolder(root, dir, label) {
  const abs = path.resolve(dir);
  if (!existsSync(path.join(abs, 'index.html'))) throw new Error(`${abs}/index.html not found: not a built app`);
  const own = path.resolve(abs, '..', 'scripts/security-headers.js');
  return { label, dir: abs, headers: existsSync(own) ? own : path.join(root, 'scripts/security-headers.js') };
}

/**
 * Checks out `rev` in a temporary worktree and builds it with that revision's own vite config.
 * node_modules is this checkout's when the lockfiles agree (no install, no network); otherwise that
 * revision's exact dependencies are installed with `npm ci`.
 * @param {string} root this checkout
 * @param {string} rev
 * @param {(line: string) => void} log
 * @returns {Promise<{ build: Build, remove: () => Promise<void> }>}
 */
export async function buildRevision(root, rev, log) {
  const sha = run('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], root);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-base-'));
  let added = false;
  const remove = async () => {
    // `git worktree remove` also drops the repository's record of it; rm covers a half-made one.
    if (added) spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
    await rm(dir, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { cwd: root, stdio: 'ignore' });
  };
  try {
    log(`Building ${rev} (${sha.slice(0, 9)}) in ${dir} …`);
    run('git', ['worktree', 'add', '--detach', '--quiet', dir, sha], root);
    added = true;
    const lock = (where) => readFileSync(path.join(where, 'package-lock.json'), 'utf8');
    if (existsSync(path.join(dir, 'package-lock.json')) && lock(dir) === lock(root)) {
      symlinkSync(realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'), 'dir');
    } else {
      log('  its package-lock.json differs from this checkout’s: npm ci …');
      run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
    }
    run(process.execPath, [path.join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], dir);
    const headers = path.join(dir, 'scripts/security-headers.js');
    if (!existsSync(headers)) throw new Error(`${rev} has no scripts/security-headers.js to serve its build with`);
    return { build: { label: `${rev} (${sha.slice(0, 9)})`, dir: path.join(dir, 'dist'), headers }, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

// npm run test:snippets: every ```ts and ```svelte block of the READMEs and docs/*.md type-checks, so
// what readers copy compiles. Each markdown file's blocks become the files of a scratch project:
//
// - A block whose first line names a file (`// src/auth.ts`, `<!-- src/App.svelte -->`) is written
//   there, so blocks import each other as the text says; any other block gets a name of its own in
//   src/. A relative import of a component no block provides gets an empty one. A block without any
//   import (a one-line example such as `auth.fetch(url)`) is checked after FRAGMENT_PRELUDE, which
//   names what those use.
// - SvelteKit blocks ($app/*, $lib/*, ./$types, @sveltejs/kit, or under src/routes/) form a SvelteKit
//   project on the example's dependencies (examples/sveltekit/node_modules, which hold the packed
//   library), so this runs after `npm run example:sveltekit`: `svelte-kit sync`, then svelte-check.
// - The others form a project on the repository's dependencies, with '@pkce-spa/auth' mapped to
//   src/lib/auth as the app's tsconfig maps it, checked by svelte-check (.ts and .svelte files).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const exampleModules = join(root, 'examples/sveltekit/node_modules');

/**
 * @typedef {object} Snippet
 * @property {string} file the markdown file, relative to the repository root
 * @property {number} line the line of the opening fence
 * @property {'ts' | 'svelte'} lang
 * @property {string} code
 * @property {string | undefined} path the file its first line names, if any
 */

/** The markdown files whose blocks are checked, relative to the root. */
export function markdownFiles() {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'src/lib/auth/README.md', 'examples/sveltekit/README.md', ...docs];
}

/**
 * The ```ts, ```typescript and ```svelte blocks of a markdown text.
 * @param {string} markdown
 * @param {string} file
 * @returns {Snippet[]}
 */
export function extractSnippets(markdown, file) {
  /** @type {Snippet[]} */
  const snippets = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, fence, info] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].trimStart().startsWith(fence)) end++;
    const lang = { ts: 'ts', typescript: 'ts', svelte: 'svelte' }[info.toLowerCase()];
    if (lang === 'ts' || lang === 'svelte') {
      const code = lines.slice(i + 1, end).join('\n') + '\n';
      const named = /^\s*(?:\/\/|<!--)\s*([\w$+./-]+\.(?:ts|svelte))\s*(?:-->)?\s*$/.exec(code.split('\n')[0]);
      snippets.push({ file, line: i + 1, lang, code, path: named?.[1] });
    }
    i = end;
  }
  return snippets;
}

/**
 * A block for SvelteKit: it imports what only a SvelteKit project has, or is a route file.
 * @param {Snippet} snippet
 */
export const isKit = ({ code, path }) =>
  /\bfrom\s+['"](\$app\/|\$lib\/|\.\/\$types['"]|@sveltejs\/kit['"])/.test(code) || !!path?.startsWith('src/routes/');

/** A block without import or export: a one-line example that uses names its text only mentions. @param {string} code */
const isFragment = (code) => !/^\s*(import|export)\s/m.test(code);

/** What the fragments (one-line examples) of the docs use without saying where it comes from. */
export const FRAGMENT_PRELUDE = `import { mount } from 'svelte';
import { authContext, type Auth } from '@pkce-spa/auth';
import App from './App.svelte';
declare const auth: Auth;
declare const form: FormData;
declare const selected: string | undefined;
type Order = { id: string; title: string; total: number };
`;

/**
 * The scratch project's files for `snippets`: path -> content. Throws when two blocks name one file.
 * @param {Snippet[]} snippets
 * @param {string} srcDir where unnamed blocks go, relative to the project
 * @returns {Map<string, string>}
 */
export function projectFiles(snippets, srcDir) {
  /** @type {Map<string, string>} */
  const files = new Map();
  /** @type {Map<string, Snippet>} */
  const from = new Map();
  for (const snippet of snippets) {
    const { lang, code, path } = snippet;
    const name = path ?? posix.join(srcDir, `snippet-${snippet.line}.${lang}`);
    const earlier = from.get(name);
    if (earlier) throw new Error(`${snippet.file}:${snippet.line} and line ${earlier.line} both name ${name}`);
    from.set(name, snippet);
    files.set(name, lang === 'ts' && isFragment(code) ? `${FRAGMENT_PRELUDE}\n${code}` : code);
  }
  // An empty component for every relative .svelte import no block provides.
  for (const [name, code] of [...files]) {
    for (const [, spec] of code.matchAll(/\bfrom\s+['"](\.\.?\/[^'"]+\.svelte)['"]/g)) {
      const target = posix.normalize(posix.join(posix.dirname(name), spec));
      if (!files.has(target)) files.set(target, '<script lang="ts"></script>\n');
    }
  }
  return files;
}

/**
 * @param {string} dir
 * @param {Map<string, string>} files
 */
function writeFiles(dir, files) {
  for (const [name, code] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), code);
  }
}

/**
 * Runs a tool with Node; true when it succeeded (its output is shown either way).
 * @param {string} script
 * @param {string[]} args
 * @param {string} cwd
 */
function node(script, args, cwd) {
  return spawnSync(process.execPath, [script, ...args], { cwd, stdio: 'inherit' }).status === 0;
}

/**
 * The blocks that need no SvelteKit, against src/lib/auth.
 * @param {string} dir
 * @param {Snippet[]} snippets
 */
function checkPlain(dir, snippets) {
  writeFiles(dir, projectFiles(snippets, 'src'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'bundler',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['svelte', 'vite/client'],
      strict: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      paths: {
        '@pkce-spa/auth': [join(root, 'src/lib/auth/index.ts')],
        '@pkce-spa/auth/testing': [join(root, 'src/lib/auth/testing.ts')],
      },
    },
    include: ['**/*.ts', '**/*.svelte'],
    exclude: ['node_modules'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const require = createRequire(join(root, 'package.json'));
  const svelteCheck = join(dirname(require.resolve('svelte-check/package.json')), 'bin/svelte-check');
  return node(svelteCheck, ['--workspace', dir, '--tsconfig', './tsconfig.json', '--fail-on-warnings'], dir);
}

/**
 * The SvelteKit blocks, in a SvelteKit project on the example's dependencies (the packed library).
 * @param {string} dir
 * @param {Snippet[]} snippets
 */
function checkKit(dir, snippets) {
  if (!existsSync(join(exampleModules, '@sveltejs/kit'))) {
    throw new Error('examples/sveltekit/node_modules lacks @sveltejs/kit: run `npm run example:sveltekit` first');
  }
  writeFiles(dir, projectFiles(snippets, 'src/lib'));
  symlinkSync(exampleModules, join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  writeFileSync(join(dir, 'svelte.config.js'), 'export default { kit: {} };\n');
  const tsconfig = {
    extends: './.svelte-kit/tsconfig.json',
    compilerOptions: { strict: true, skipLibCheck: true, verbatimModuleSyntax: true, isolatedModules: true },
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const synced = node(join(exampleModules, '@sveltejs/kit/svelte-kit.js'), ['sync'], dir);
  return (
    synced &&
    node(join(exampleModules, 'svelte-check/bin/svelte-check'), ['--tsconfig', './tsconfig.json', '--fail-on-warnings'], dir)
  );
}

function main() {
  const snippets = markdownFiles().flatMap((file) => extractSnippets(readFileSync(join(root, file), 'utf8'), file));
  const scratch = mkdtempSync(join(tmpdir(), 'snippets-'));
  /** @type {string[]} */
  const failed = [];
  try {
    for (const file of new Set(snippets.map((snippet) => snippet.file))) {
      const own = snippets.filter((snippet) => snippet.file === file);
      const where = (/** @type {Snippet[]} */ group) => group.map((snippet) => `${file}:${snippet.line}`).join(', ');
      const dir = join(scratch, file.replace(/[^\w]+/g, '-'));
      const plain = own.filter((snippet) => !isKit(snippet));
      const kit = own.filter(isKit);
      console.log(`${file}: ${own.length} block(s), ${kit.length} for SvelteKit`);
      if (plain.length && !checkPlain(`${dir}-plain`, plain)) failed.push(where(plain));
      if (kit.length && !checkKit(`${dir}-kit`, kit)) failed.push(where(kit));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (failed.length) {
    console.error(
      `These code blocks do not type-check (see above; files are named as in their first line):\n  ${failed.join('\n  ')}`,
    );
    process.exit(1);
  }
  console.log(`${snippets.length} code blocks of ${markdownFiles().length} markdown files type-check`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

// The snippet check's reading of markdown (scripts/check-snippets.js): which blocks it takes, where
// it writes them, and which it hands to SvelteKit. The type check itself runs in `npm run test:snippets`.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FRAGMENT_PRELUDE, extractSnippets, isKit, markdownFiles, projectFiles } from './check-snippets.js';

const root = resolve(import.meta.dirname, '..');

describe('extractSnippets', () => {
  it('takes ts, typescript and svelte blocks, with the file their first line names', () => {
    const markdown = [
      '# Title',
      '```ts',
      '// src/auth.ts',
      'export const a = 1;',
      '```',
      '```sh',
      'npm test',
      '```',
      '````svelte',
      '<!-- src/routes/+page.svelte -->',
      '```ts',
      '````',
      '```typescript',
      'auth.fetch(url);',
      '```',
      '```json',
      '{}',
      '```',
    ].join('\n');
    expect(extractSnippets(markdown, 'x.md')).toEqual([
      { file: 'x.md', line: 2, lang: 'ts', code: '// src/auth.ts\nexport const a = 1;\n', path: 'src/auth.ts' },
      {
        file: 'x.md',
        line: 9,
        lang: 'svelte',
        code: '<!-- src/routes/+page.svelte -->\n```ts\n',
        path: 'src/routes/+page.svelte',
      },
      { file: 'x.md', line: 13, lang: 'ts', code: 'auth.fetch(url);\n', path: undefined },
    ]);
  });

  it('finds the blocks of the package README, SvelteKit ones among them', () => {
    expect(markdownFiles()).toEqual(expect.arrayContaining(['README.md', 'src/lib/auth/README.md', 'docs/auth-module.md']));
    const snippets = extractSnippets(readFileSync(join(root, 'src/lib/auth/README.md'), 'utf8'), 'src/lib/auth/README.md');
    expect(snippets.map((snippet) => snippet.path)).toEqual(
      expect.arrayContaining(['src/auth.ts', 'src/App.svelte', 'src/lib/auth.ts', 'src/routes/orders/+page.ts']),
    );
    expect(snippets.filter(isKit).map((snippet) => snippet.path)).toEqual([
      'src/lib/auth.ts',
      'src/routes/+layout.svelte',
      'src/routes/orders/+page.ts',
      'src/routes/orders/+page.svelte',
    ]);
  });
});

describe('projectFiles', () => {
  let line = 0;
  /** A block at the next line number. @param {string} code @param {string} [path] @param {'ts' | 'svelte'} [lang] */
  const block = (code, path, lang = /** @type {'ts' | 'svelte'} */ ('ts')) => ({ file: 'x.md', line: ++line, lang, code, path });
  beforeEach(() => {
    line = 0;
  });

  it('writes named blocks at their path and the others under srcDir; one-liners get the prelude', () => {
    const files = projectFiles([block("import { a } from './auth';\n", 'src/main.ts'), block('auth.signOut();\n')], 'src');
    expect([...files.keys()].sort()).toEqual(['src/App.svelte', 'src/main.ts', 'src/snippet-2.ts']);
    expect(files.get('src/snippet-2.ts')).toBe(`${FRAGMENT_PRELUDE}\nauth.signOut();\n`);
    expect(files.get('src/main.ts')).toBe("import { a } from './auth';\n");
  });

  it('adds an empty component for a relative .svelte import no block provides, and keeps the ones that exist', () => {
    const files = projectFiles(
      [
        block("import App from './App.svelte';\nimport Orders from '../Orders.svelte';\n", 'src/app/main.ts'),
        block('<p>orders</p>\n', 'src/Orders.svelte', 'svelte'),
      ],
      'src',
    );
    expect(files.get('src/app/App.svelte')).toBe('<script lang="ts"></script>\n');
    expect(files.get('src/Orders.svelte')).toBe('<p>orders</p>\n');
  });

  it('refuses two blocks that name one file', () => {
    expect(() => projectFiles([block('export {};\n', 'src/a.ts'), block('export { };\n', 'src/a.ts')], 'src')).toThrow(
      /both name src\/a\.ts/,
    );
  });
});

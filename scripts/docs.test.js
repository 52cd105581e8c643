// The documentation stays usable: the README stays short enough that the quick start is found
// without reading reference material (that lives in docs/), and no relative link in the README or
// docs/ points to a file that is not there. Anchors (#…) are not checked.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const README_MAX_BYTES = 15_000;

/** README.md and every docs/*.md, as paths relative to the repository root. */
const markdownFiles = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/**
 * The targets of the inline links and images (`[text](target)`, `![alt](target)`) and of the link
 * reference definitions (`[label]: target`) of a markdown text, leaving out code (fenced blocks and
 * inline spans), where brackets are not links.
 * @param {string} markdown
 * @returns {string[]}
 */
function linkTargets(markdown) {
  const prose = markdown
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
  const inline = [
    ...prose.matchAll(/\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g),
  ];
  const definitions = [...prose.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm)];
  return [...inline, ...definitions].map(([, target]) => target.replace(/^<|>$/g, ''));
}

/**
 * The file a link target names, relative to the repository root, or undefined for a target that
 * is not a relative path: an absolute URL (`https:`, `mailto:`…), a protocol-relative or rooted
 * one, or an anchor in the same file.
 * @param {string} file the markdown file the link is in, relative to the root
 * @param {string} target
 */
function linkedFile(file, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/') || target.startsWith('#') || target === '') {
    return undefined;
  }
  const path = decodeURIComponent(target.replace(/[?#].*$/, ''));
  return relative(root, resolve(root, dirname(file), path));
}

describe('README.md', () => {
  it(`is at most ${README_MAX_BYTES} bytes, so the quick start is near the top and reference lives in docs/`, () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});

describe('relative links in README.md and docs/*.md', () => {
  it('finds the markdown files and their links', () => {
    expect(markdownFiles).toContain('docs/performance.md');
    expect(linkTargets(readFileSync(join(root, 'README.md'), 'utf8'))).toContain('docs/profile.png');
  });

  it.each(markdownFiles)('%s links only to files that exist', (file) => {
    const missing = linkTargets(readFileSync(join(root, file), 'utf8'))
      .map((target) => [target, linkedFile(file, target)])
      .filter(([, path]) => path !== undefined && !existsSync(join(root, /** @type {string} */ (path))))
      .map(([target]) => target);
    expect(missing).toEqual([]);
  });
});

describe('linkTargets', () => {
  it('reads inline links, images, titles, angle brackets and reference definitions', () => {
    const markdown = [
      'See [a](docs/a.md#part), ![b](docs/b.png "title"), [c](<docs/c d.md>) and [d][ref].',
      'A [link\nover two lines](docs/e.md) and [f](https://example.com/f).',
      '[ref]: docs/ref.md',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual([
      'docs/a.md#part',
      'docs/b.png',
      'docs/c d.md',
      'docs/e.md',
      'https://example.com/f',
      'docs/ref.md',
    ]);
  });

  it('ignores brackets in code blocks and inline code', () => {
    const markdown = [
      '```ts',
      'const x = list[0](arg);',
      '```',
      'Call `items[i](x)` here.',
      '~~~',
      '[y](nowhere.md)',
      '~~~',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual([]);
  });

  it('leaves URLs and same-file anchors out of the files to check', () => {
    expect(linkedFile('docs/a.md', 'https://example.com/')).toBeUndefined();
    expect(linkedFile('docs/a.md', 'mailto:someone@example.com')).toBeUndefined();
    expect(linkedFile('docs/a.md', '#size')).toBeUndefined();
    expect(linkedFile('docs/a.md', '../src/lib/auth/README.md#tabs')).toBe(join('src', 'lib', 'auth', 'README.md'));
    expect(linkedFile('README.md', 'docs/c%20d.md')).toBe(join('docs', 'c d.md'));
  });
});

// Server- or URL-supplied text is shown only after safeText: no invisible or direction-changing
// characters, and a sane length.
import { describe, expect, it } from 'vitest';
import { MAX_TEXT, safeText } from './text';

describe('safeText', () => {
  it('leaves ordinary text alone, markup included (it is rendered as text, not parsed)', () => {
    expect(safeText('Hello, Alice <b>Liddell</b> — ünïcödé 😀')).toBe('Hello, Alice <b>Liddell</b> — ünïcödé 😀');
  });

  it.each([
    ['NUL', '\u0000'],
    ['escape', '\u001b[31m'],
    ['DEL', '\u007f'],
    ['C1 control', '\u0085'],
    ['right-to-left override', '\u202e'],
    ['left-to-right embedding', '\u202a'],
    ['first strong isolate', '\u2068'],
    ['pop directional isolate', '\u2069'],
    ['right-to-left mark', '\u200f'],
    ['Arabic letter mark', '\u061c'],
  ])('removes %s', (_name, char) => {
    const out = safeText(`a${char}b`);
    expect(out).not.toContain(char);
    expect(out.startsWith('a')).toBe(true);
    expect(out.endsWith('b')).toBe(true);
  });

  it('removes newlines and tabs unless multiline, where only newlines stay', () => {
    expect(safeText('a\nb\tc')).not.toMatch(/[\n\t]/);
    expect(safeText('a\nb\tc', 100, { multiline: true })).toMatch(/^a\nb[^\t]c$/);
    expect(safeText('a\u202eb', 100, { multiline: true })).not.toContain('\u202e');
  });

  it(`cuts to ${MAX_TEXT} characters by default, marking the cut`, () => {
    const out = safeText('x'.repeat(10_000));
    expect(out.length).toBe(MAX_TEXT);
    expect(out.endsWith('…')).toBe(true);
    expect(safeText('x'.repeat(MAX_TEXT))).toBe('x'.repeat(MAX_TEXT));
  });

  it('honours a custom limit and trims surrounding space', () => {
    expect(safeText('  abcdef  ', 4)).toBe('abc…');
    expect(safeText('  ab  ', 4)).toBe('ab');
  });
});

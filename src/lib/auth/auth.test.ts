// safeReturnTo: the app's own place to come back to is a same-origin path with its query, never a way off the origin.
import { describe, expect, it } from 'vitest';
import { safeReturnTo } from './auth';

describe('safeReturnTo', () => {
  it.each(['//evil.example', '/\\evil.example', 'https://evil.example', ' /profile', 42, null, '', '/' + 'x'.repeat(600)])(
    '%j is refused',
    (input) => {
      expect(safeReturnTo(input)).toBeUndefined();
    },
  );

  it.each(['/..//evil.example', '/.//evil.example', '/a/..//evil.example', '/\t/evil.example', '/\n/evil.example'])(
    '%j never yields a path starting with //',
    (input) => {
      const path = safeReturnTo(input);
      expect(path === undefined || !path.startsWith('//')).toBe(true);
    },
  );

  it('keeps path and query, normalised, and drops a fragment', () => {
    expect(safeReturnTo('/orders?page=2')).toBe('/orders?page=2');
    expect(safeReturnTo('/x/../api?x=1#top')).toBe('/api?x=1');
  });
});

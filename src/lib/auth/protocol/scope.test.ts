// Scope and step-up values: what a resource server or storage hands in is taken only when valid
// (stepUpRequest, which builds a step-up from them, is tested in stepup.test.ts).
import { describe, expect, it } from 'vitest';
import { MAX_AGE_LIMIT_S, maxAge, tokenList, unionScope } from './scope';

describe('the validators', () => {
  it('tokenList takes NQCHAR tokens (RFC 6749 §3.3) separated by one space', () => {
    expect(tokenList('openid profile')).toBe('openid profile');
    expect(tokenList('a!#[]~')).toBe('a!#[]~');
    for (const bad of ['', ' ', 'a ', 'a\\b', 'a"b', 'a\nb', 42, undefined, null]) expect(tokenList(bad)).toBeUndefined();
  });

  it('tokenList takes 512 characters and drops 513, never cutting them', () => {
    const list = `${'a'.repeat(255)} ${'b'.repeat(256)}`;
    expect(tokenList(list)).toBe(list);
    expect(tokenList(`${list}b`)).toBeUndefined();
  });

  it('maxAge takes whole seconds from 0 to a year, as a number or digits', () => {
    expect([maxAge(0), maxAge('60'), maxAge(MAX_AGE_LIMIT_S)]).toEqual([0, 60, MAX_AGE_LIMIT_S]);
    for (const bad of [-1, 1.5, NaN, Infinity, '1.0', ' 1', '', MAX_AGE_LIMIT_S + 1, null, {}])
      expect(maxAge(bad)).toBeUndefined();
  });

  it('unionScope keeps each token once, in order', () => {
    expect(unionScope('openid profile', undefined, 'profile notes.write', '')).toBe('openid profile notes.write');
  });
});

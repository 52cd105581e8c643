// Scope and step-up values: what a resource server or storage hands in is taken only when valid, and
// what signIn() asks beyond a plain sign-in becomes the authorization request's step-up, recorded for the
// API it is for.
import { describe, expect, it } from 'vitest';
import { MAX_AGE_LIMIT_S, maxAge, stepUpRequest, tokenList, unionScope } from './scope';

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

describe('stepUpRequest', () => {
  const SESSION = 'openid profile notes.read';

  it('is nothing when nothing is asked: a plain sign-in', () => {
    expect(stepUpRequest(SESSION, {})).toBeUndefined();
  });

  it("asks for the session's scope plus the added tokens, once each, and remembers what was added", () => {
    expect(stepUpRequest(SESSION, { scope: 'notes.write notes.read' })).toEqual({
      scope: 'openid profile notes.read notes.write',
      added: 'notes.write notes.read',
    });
  });

  it("asks for acr_values and max_age (0 too) with the session's scope, and adds no scope", () => {
    expect(stepUpRequest(SESSION, { acr_values: 'urn:mfa phr', max_age: 0 })).toEqual({
      scope: SESSION,
      acr_values: 'urn:mfa phr',
      max_age: 0,
    });
    expect(stepUpRequest(SESSION, { max_age: MAX_AGE_LIMIT_S })).toEqual({ scope: SESSION, max_age: MAX_AGE_LIMIT_S });
  });

  it('records the scope for the API it names, on top of what earlier step-ups added for each API', () => {
    const NOTES = 'https://notes.example/';
    const OTHER = 'https://other.example/';
    expect(stepUpRequest(SESSION, { scope: 'notes.write', resource: NOTES }, [NOTES, OTHER])).toEqual({
      scope: `${SESSION} notes.write`,
      added: 'notes.write',
      apis: { [NOTES]: 'notes.write' },
    });
    const earlier = { [NOTES]: 'notes.write', [OTHER]: 'other.write' };
    expect(stepUpRequest(SESSION, { scope: 'notes.admin', resource: NOTES }, [NOTES, OTHER], earlier)).toEqual({
      scope: `${SESSION} notes.admin`,
      added: 'notes.admin',
      apis: { [NOTES]: 'notes.write notes.admin', [OTHER]: 'other.write' },
    });
    // Without an API the scope widens the sign-in token only; earlier records are kept as they are.
    expect(stepUpRequest(SESSION, { scope: 'service.admin' }, [NOTES], earlier)?.apis).toEqual(earlier);
    expect(stepUpRequest(SESSION, { max_age: 0 }, [NOTES], earlier)?.apis).toEqual(earlier);
  });

  it("a resource that is none of the instance's APIs is the caller's bug: a TypeError", () => {
    expect(() => stepUpRequest(SESSION, { scope: 'a', resource: 'https://evil.example/' }, ['https://notes.example/'])).toThrow(
      /^signIn: .* resource/,
    );
  });

  it.each([
    ['a scope with a quote', { scope: 'a"b' }],
    ['an empty scope', { scope: '' }],
    ['a scope with two spaces', { scope: 'a  b' }],
    ['acr_values with a newline', { acr_values: 'a\nb' }],
    ['empty acr_values', { acr_values: '' }],
    ['a negative max_age', { max_age: -1 }],
    ['a fractional max_age', { max_age: 1.5 }],
    ['a max_age over a year', { max_age: MAX_AGE_LIMIT_S + 1 }],
  ])("%s is the caller's bug: a TypeError that names the options", (_name, options) => {
    expect(() => stepUpRequest(SESSION, options)).toThrow(TypeError);
    expect(() => stepUpRequest(SESSION, options)).toThrow(/^signIn: scope and acr_values .* max_age/);
  });
});

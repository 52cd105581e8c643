// The pending sign-in in per-tab storage: one at a time, single-use, 10 minutes, answered only by its state.
import { beforeEach, describe, expect, it } from 'vitest';
import { PENDING_TTL_MS, clearPending, savePending, takePending, type PendingSignIn } from './transaction';

const T0 = 1_700_000_000_000;
const tx = (state: string, createdAt = T0): PendingSignIn => ({
  state,
  codeVerifier: `verifier-${state}`,
  nonce: `nonce-${state}`,
  returnTo: '/profile',
  silent: false,
  createdAt,
});

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe('pending sign-in', () => {
  it('is kept in sessionStorage (per tab, not localStorage) under auth:tx', () => {
    savePending(sessionStorage, tx('abc'));
    expect(Object.keys(sessionStorage)).toEqual(['auth:tx']);
    expect(localStorage.length).toBe(0);
  });

  it('is returned for its state, once', () => {
    savePending(sessionStorage, tx('abc'));
    expect(takePending(sessionStorage, 'abc', T0 + 1000)).toEqual(tx('abc'));
    expect(takePending(sessionStorage, 'abc', T0 + 1000)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('is answered only by its state; any other answer (or none) uses it up', () => {
    for (const state of ['xyz', null, '']) {
      savePending(sessionStorage, tx('abc'));
      expect(takePending(sessionStorage, state, T0)).toBeUndefined();
      expect(takePending(sessionStorage, 'abc', T0)).toBeUndefined();
    }
  });

  it('a new attempt replaces the abandoned one: the earlier state is no longer answered', () => {
    savePending(sessionStorage, tx('one'));
    savePending(sessionStorage, tx('two'));
    expect(takePending(sessionStorage, 'one', T0)).toBeUndefined();
    savePending(sessionStorage, tx('two'));
    expect(takePending(sessionStorage, 'two', T0)?.codeVerifier).toBe('verifier-two');
  });

  it('expires after 10 minutes, and is removed when found expired', () => {
    expect(PENDING_TTL_MS).toBe(10 * 60 * 1000);
    savePending(sessionStorage, tx('fresh'));
    expect(takePending(sessionStorage, 'fresh', T0 + PENDING_TTL_MS - 1)).toBeDefined();
    savePending(sessionStorage, tx('old'));
    expect(takePending(sessionStorage, 'old', T0 + PENDING_TTL_MS)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('is not honoured when created in the future (clock games)', () => {
    savePending(sessionStorage, tx('future', T0 + 60_000));
    expect(takePending(sessionStorage, 'future', T0)).toBeUndefined();
  });

  it.each([
    ['another state inside', JSON.stringify({ ...tx('other') })],
    ['not JSON', '{not json'],
    ['missing fields', JSON.stringify({ state: 'abc', createdAt: T0 })],
    ['a verifier that is not a string', JSON.stringify({ ...tx('abc'), codeVerifier: 42 })],
    ['no creation time', JSON.stringify({ ...tx('abc'), createdAt: undefined })],
  ])('a tampered or foreign entry (%s) is not honoured, and is removed', (_name, raw) => {
    sessionStorage.setItem('auth:tx', raw);
    expect(takePending(sessionStorage, 'abc', T0)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('clearPending forgets the pending sign-in and nothing else', () => {
    savePending(sessionStorage, tx('one'));
    sessionStorage.setItem('unrelated', 'x');
    clearPending(sessionStorage);
    expect(Object.keys(sessionStorage)).toEqual(['unrelated']);
  });
});

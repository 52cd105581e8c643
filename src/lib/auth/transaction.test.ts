// Issue 2, flow step 1: the pending sign-in in sessionStorage, keyed by state, single-use, 10 minutes.
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
const txKeys = () => Object.keys(sessionStorage).filter((key) => key.startsWith('auth:tx:'));

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe('pending sign-in', () => {
  it('is kept in sessionStorage (not localStorage) under auth:tx:<state>', () => {
    savePending(tx('abc'), T0);
    expect(txKeys()).toEqual(['auth:tx:abc']);
    expect(localStorage.length).toBe(0);
  });

  it('is returned for its state, once', () => {
    savePending(tx('abc'), T0);
    expect(takePending('abc', T0 + 1000)).toEqual(tx('abc'));
    expect(takePending('abc', T0 + 1000)).toBeUndefined();
    expect(txKeys()).toEqual([]);
  });

  it('is keyed by state: another state gets nothing and does not consume it', () => {
    savePending(tx('abc'), T0);
    expect(takePending('xyz', T0)).toBeUndefined();
    expect(takePending(null, T0)).toBeUndefined();
    expect(takePending('', T0)).toBeUndefined();
    expect(takePending('abc', T0)).toMatchObject({ state: 'abc' });
  });

  it('keeps parallel attempts apart', () => {
    savePending(tx('one'), T0);
    savePending(tx('two'), T0);
    expect(takePending('two', T0)?.codeVerifier).toBe('verifier-two');
    expect(takePending('one', T0)?.codeVerifier).toBe('verifier-one');
  });

  it('expires after 10 minutes, and is removed when found expired', () => {
    expect(PENDING_TTL_MS).toBe(10 * 60 * 1000);
    savePending(tx('fresh'), T0);
    savePending(tx('old'), T0);
    expect(takePending('fresh', T0 + PENDING_TTL_MS - 1)).toBeDefined();
    expect(takePending('old', T0 + PENDING_TTL_MS)).toBeUndefined();
    expect(txKeys()).toEqual([]);
  });

  it('is not honoured when created in the future (clock games)', () => {
    savePending(tx('future', T0 + 60_000), T0);
    expect(takePending('future', T0)).toBeUndefined();
  });

  it('abandoned, expired attempts are swept when a new one is saved', () => {
    savePending(tx('abandoned'), T0);
    savePending(tx('new', T0 + PENDING_TTL_MS + 1), T0 + PENDING_TTL_MS + 1);
    expect(txKeys()).toEqual(['auth:tx:new']);
  });

  it('a tampered or foreign entry is not honoured', () => {
    sessionStorage.setItem('auth:tx:abc', JSON.stringify({ ...tx('other'), createdAt: T0 }));
    expect(takePending('abc', T0)).toBeUndefined();
    sessionStorage.setItem('auth:tx:bad', '{not json');
    expect(takePending('bad', T0)).toBeUndefined();
    sessionStorage.setItem('auth:tx:partial', JSON.stringify({ state: 'partial', createdAt: T0 }));
    expect(takePending('partial', T0)).toBeUndefined();
    expect(txKeys()).toEqual([]);
  });

  it('clearPending forgets every pending sign-in and nothing else', () => {
    savePending(tx('one'), T0);
    savePending(tx('two'), T0);
    sessionStorage.setItem('unrelated', 'x');
    clearPending();
    expect(txKeys()).toEqual([]);
    expect(sessionStorage.getItem('unrelated')).toBe('x');
  });
});

// The pending sign-in in per-tab storage, keyed by state, single-use, 10 minutes.
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
    savePending(sessionStorage, tx('abc'));
    expect(txKeys()).toEqual(['auth:tx:abc']);
    expect(localStorage.length).toBe(0);
  });

  it('is returned for its state, once', () => {
    savePending(sessionStorage, tx('abc'));
    expect(takePending(sessionStorage, 'abc', T0 + 1000)).toEqual(tx('abc'));
    expect(takePending(sessionStorage, 'abc', T0 + 1000)).toBeUndefined();
    expect(txKeys()).toEqual([]);
  });

  it('is keyed by state: another state gets nothing and does not consume it', () => {
    savePending(sessionStorage, tx('abc'));
    expect(takePending(sessionStorage, 'xyz', T0)).toBeUndefined();
    // A wrong state is an answer too: the attempt it could have matched is gone.
    expect(takePending(sessionStorage, 'abc', T0)).toBeUndefined();
    savePending(sessionStorage, tx('abc'));
    expect(takePending(sessionStorage, null, T0)).toBeUndefined();
    savePending(sessionStorage, tx('abc'));
    expect(takePending(sessionStorage, 'abc', T0)).toMatchObject({ state: 'abc' });
  });

  it('keeps parallel attempts apart, and answering one forgets the others', () => {
    savePending(sessionStorage, tx('one'));
    savePending(sessionStorage, tx('two'));
    expect(takePending(sessionStorage, 'two', T0)?.codeVerifier).toBe('verifier-two');
    expect(takePending(sessionStorage, 'one', T0)).toBeUndefined();
  });

  it('expires after 10 minutes, and is removed when found expired', () => {
    expect(PENDING_TTL_MS).toBe(10 * 60 * 1000);
    savePending(sessionStorage, tx('fresh'));
    expect(takePending(sessionStorage, 'fresh', T0 + PENDING_TTL_MS - 1)).toBeDefined();
    savePending(sessionStorage, tx('old'));
    expect(takePending(sessionStorage, 'old', T0 + PENDING_TTL_MS)).toBeUndefined();
    expect(txKeys()).toEqual([]);
  });

  it('is not honoured when created in the future (clock games)', () => {
    savePending(sessionStorage, tx('future', T0 + 60_000));
    expect(takePending(sessionStorage, 'future', T0)).toBeUndefined();
  });

  it('abandoned, expired attempts are swept when a new one is saved', () => {
    savePending(sessionStorage, tx('abandoned'));
    savePending(sessionStorage, tx('new', T0 + PENDING_TTL_MS + 1));
    expect(txKeys()).toEqual(['auth:tx:new']);
  });

  it('a tampered or foreign entry is not honoured', () => {
    sessionStorage.setItem('auth:tx:abc', JSON.stringify({ ...tx('other'), createdAt: T0 }));
    expect(takePending(sessionStorage, 'abc', T0)).toBeUndefined();
    sessionStorage.setItem('auth:tx:bad', '{not json');
    expect(takePending(sessionStorage, 'bad', T0)).toBeUndefined();
    sessionStorage.setItem('auth:tx:partial', JSON.stringify({ state: 'partial', createdAt: T0 }));
    expect(takePending(sessionStorage, 'partial', T0)).toBeUndefined();
    expect(txKeys()).toEqual([]);
  });

  it('clearPending forgets every pending sign-in and nothing else', () => {
    savePending(sessionStorage, tx('one'));
    savePending(sessionStorage, tx('two'));
    sessionStorage.setItem('unrelated', 'x');
    clearPending(sessionStorage);
    expect(txKeys()).toEqual([]);
    expect(sessionStorage.getItem('unrelated')).toBe('x');
  });
});

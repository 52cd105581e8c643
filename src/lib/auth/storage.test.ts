// Every storage key of the auth module: the pending sign-in and sign-out and the restore guard per tab
// (sessionStorage), one non-secret hint per browser (localStorage). A browser port fits as the stores.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  PENDING_TTL_MS,
  clearTab,
  forgetHint,
  lastRestore,
  noteRestore,
  readHint,
  saveSignOut,
  savePending,
  takePending,
  takeSignOut,
  writeHint,
} from './storage';
import type { PendingSignIn } from './protocol';

const T0 = 1_700_000_000_000;
const tx = (state: string, createdAt = T0): PendingSignIn => ({
  state,
  codeVerifier: `verifier-${state}`,
  nonce: `nonce-${state}`,
  returnTo: '/profile',
  silent: false,
  createdAt,
});
const stores = { perTab: sessionStorage, perBrowser: localStorage };

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe('pending sign-in', () => {
  it('is kept in sessionStorage (per tab, not localStorage) under auth:tx', () => {
    savePending(stores, tx('abc'));
    expect(Object.keys(sessionStorage)).toEqual(['auth:tx']);
    expect(localStorage.length).toBe(0);
  });

  it('is returned for its state, once', () => {
    savePending(stores, tx('abc'));
    expect(takePending(stores, 'abc', T0 + 1000)).toEqual(tx('abc'));
    expect(takePending(stores, 'abc', T0 + 1000)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('is answered only by its state; any other answer (or none) uses it up', () => {
    for (const state of ['xyz', null, '']) {
      savePending(stores, tx('abc'));
      expect(takePending(stores, state, T0)).toBeUndefined();
      expect(takePending(stores, 'abc', T0)).toBeUndefined();
    }
  });

  it('a new attempt replaces the abandoned one: the earlier state is no longer answered', () => {
    savePending(stores, tx('one'));
    savePending(stores, tx('two'));
    expect(takePending(stores, 'one', T0)).toBeUndefined();
    savePending(stores, tx('two'));
    expect(takePending(stores, 'two', T0)?.codeVerifier).toBe('verifier-two');
  });

  it('expires after 10 minutes, and is removed when found expired', () => {
    expect(PENDING_TTL_MS).toBe(10 * 60 * 1000);
    savePending(stores, tx('fresh'));
    expect(takePending(stores, 'fresh', T0 + PENDING_TTL_MS - 1)).toBeDefined();
    savePending(stores, tx('old'));
    expect(takePending(stores, 'old', T0 + PENDING_TTL_MS)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('is not honoured when created in the future (clock games)', () => {
    savePending(stores, tx('future', T0 + 60_000));
    expect(takePending(stores, 'future', T0)).toBeUndefined();
  });

  it.each([
    ['another state inside', JSON.stringify({ ...tx('other') })],
    ['not JSON', '{not json'],
    ['missing fields', JSON.stringify({ state: 'abc', createdAt: T0 })],
    ['a verifier that is not a string', JSON.stringify({ ...tx('abc'), codeVerifier: 42 })],
    ['a returnTo that is not a string', JSON.stringify({ ...tx('abc'), returnTo: 42 })],
    ['no creation time', JSON.stringify({ ...tx('abc'), createdAt: undefined })],
  ])('a tampered or foreign entry (%s) is not honoured, and is removed', (_name, raw) => {
    sessionStorage.setItem('auth:tx', raw);
    expect(takePending(stores, 'abc', T0)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });
});

describe('pending sign-out', () => {
  it('is kept per tab under auth:logout', () => {
    saveSignOut(stores, 'out-state');
    expect(Object.keys(sessionStorage)).toEqual(['auth:logout']);
    expect(localStorage.length).toBe(0);
  });

  it('matches its own state once', () => {
    saveSignOut(stores, 'out-state');
    expect(takeSignOut(stores, 'out-state')).toBe(true);
    expect(takeSignOut(stores, 'out-state')).toBe(false);
  });

  it.each([
    ['another state', 'forged'],
    ['no state', null],
    ['an empty state', ''],
  ])('%s does not match, and uses the record up', (_name, state) => {
    saveSignOut(stores, 'out-state');
    expect(takeSignOut(stores, state)).toBe(false);
    expect(takeSignOut(stores, 'out-state')).toBe(false);
  });

  it('nothing pending matches nothing, not even a null state', () => {
    expect(takeSignOut(stores, null)).toBe(false);
    expect(takeSignOut(stores, 'x')).toBe(false);
  });
});

describe('restore guard', () => {
  it('is 0 when this tab never restored', () => {
    expect(lastRestore(stores)).toBe(0);
  });

  it('remembers when the last silent restore began, per tab', () => {
    noteRestore(stores, T0);
    expect(lastRestore(stores)).toBe(T0);
    expect(Object.keys(sessionStorage)).toEqual(['auth:restore-at']);
    expect(localStorage.length).toBe(0);
  });

  it('a value that is not a number counts as never', () => {
    sessionStorage.setItem('auth:restore-at', 'soon');
    expect(lastRestore(stores)).toBe(0);
  });
});

describe('hint', () => {
  it('is nothing at first', () => {
    expect(readHint(stores)).toBeUndefined();
  });

  it('is kept per browser as "1" for a session and "out" after a sign-out, and nothing else', () => {
    writeHint(stores, 'had-session');
    expect(readHint(stores)).toBe('had-session');
    expect({ ...localStorage }).toEqual({ 'auth:hint': '1' });
    writeHint(stores, 'signed-out');
    expect(readHint(stores)).toBe('signed-out');
    expect({ ...localStorage }).toEqual({ 'auth:hint': 'out' });
    expect(sessionStorage.length).toBe(0);
  });

  it('an unknown value means nothing', () => {
    localStorage.setItem('auth:hint', 'true');
    expect(readHint(stores)).toBeUndefined();
  });

  it('forgetHint removes it', () => {
    writeHint(stores, 'had-session');
    forgetHint(stores);
    expect(readHint(stores)).toBeUndefined();
    expect(localStorage.length).toBe(0);
  });
});

it("clearTab forgets this tab's sign-in, sign-out and restore guard, and nothing else", () => {
  savePending(stores, tx('one'));
  saveSignOut(stores, 'out-state');
  noteRestore(stores, T0);
  sessionStorage.setItem('unrelated', 'x');
  writeHint(stores, 'had-session');
  clearTab(stores);
  expect(Object.keys(sessionStorage)).toEqual(['unrelated']);
  expect(readHint(stores)).toBe('had-session');
});

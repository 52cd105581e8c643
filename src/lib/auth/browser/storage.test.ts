// Every storage key of the auth module: the pending sign-in and sign-out and the restore guard per tab
// (sessionStorage), one non-secret hint per browser (localStorage). A browser port fits as the stores.
import { beforeEach, describe, expect, it } from 'vitest';
import { PENDING_TTL_MS, appNames, appStorage } from './storage';
import type { PendingSignIn } from '../protocol/steps';

const T0 = 1_700_000_000_000;
const tx = (state: string, createdAt = T0): PendingSignIn => ({
  state,
  codeVerifier: `verifier-${state}`,
  nonce: `nonce-${state}`,
  returnTo: '/profile',
  silent: false,
  createdAt,
});
const names = appNames('https://id.example', 'demo-spa');
const records = appStorage({ perTab: sessionStorage, perBrowser: localStorage }, names);
const {
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
} = records;

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe('pending sign-in', () => {
  it('is kept in sessionStorage (per tab, not localStorage) under auth:tx', () => {
    savePending(tx('abc'));
    expect(Object.keys(sessionStorage)).toEqual([names.key('tx')]);
    expect(localStorage.length).toBe(0);
  });

  it('is returned for its state, once', () => {
    savePending(tx('abc'));
    expect(takePending('abc', T0 + 1000)).toEqual(tx('abc'));
    expect(takePending('abc', T0 + 1000)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('is answered only by its state; any other answer (or none) uses it up', () => {
    for (const state of ['xyz', null, '']) {
      savePending(tx('abc'));
      expect(takePending(state, T0)).toBeUndefined();
      expect(takePending('abc', T0)).toBeUndefined();
    }
  });

  it('a new attempt replaces the abandoned one: the earlier state is no longer answered', () => {
    savePending(tx('one'));
    savePending(tx('two'));
    expect(takePending('one', T0)).toBeUndefined();
    savePending(tx('two'));
    expect(takePending('two', T0)?.codeVerifier).toBe('verifier-two');
  });

  it('expires after 10 minutes, and is removed when found expired', () => {
    expect(PENDING_TTL_MS).toBe(10 * 60 * 1000);
    savePending(tx('fresh'));
    expect(takePending('fresh', T0 + PENDING_TTL_MS - 1)).toBeDefined();
    savePending(tx('old'));
    expect(takePending('old', T0 + PENDING_TTL_MS)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });

  it('is not honoured when created in the future (clock games)', () => {
    savePending(tx('future', T0 + 60_000));
    expect(takePending('future', T0)).toBeUndefined();
  });

  it.each([
    ['another state inside', JSON.stringify({ ...tx('other') })],
    ['not JSON', '{not json'],
    ['missing fields', JSON.stringify({ state: 'abc', createdAt: T0 })],
    ['a verifier that is not a string', JSON.stringify({ ...tx('abc'), codeVerifier: 42 })],
    ['a returnTo that is not a string', JSON.stringify({ ...tx('abc'), returnTo: 42 })],
    ['no creation time', JSON.stringify({ ...tx('abc'), createdAt: undefined })],
  ])('a tampered or foreign entry (%s) is not honoured, and is removed', (_name, raw) => {
    sessionStorage.setItem(names.key('tx'), raw);
    expect(takePending('abc', T0)).toBeUndefined();
    expect(sessionStorage.length).toBe(0);
  });
});

describe('pending sign-out', () => {
  it('is kept per tab under auth:logout', () => {
    saveSignOut('out-state');
    expect(Object.keys(sessionStorage)).toEqual([names.key('logout')]);
    expect(localStorage.length).toBe(0);
  });

  it('matches its own state once', () => {
    saveSignOut('out-state');
    expect(takeSignOut('out-state')).toBe(true);
    expect(takeSignOut('out-state')).toBe(false);
  });

  it.each([
    ['another state', 'forged'],
    ['no state', null],
    ['an empty state', ''],
  ])('%s does not match, and uses the record up', (_name, state) => {
    saveSignOut('out-state');
    expect(takeSignOut(state)).toBe(false);
    expect(takeSignOut('out-state')).toBe(false);
  });

  it('nothing pending matches nothing, not even a null state', () => {
    expect(takeSignOut(null)).toBe(false);
    expect(takeSignOut('x')).toBe(false);
  });
});

describe('restore guard', () => {
  it('is 0 when this tab never restored', () => {
    expect(lastRestore()).toBe(0);
  });

  it('remembers when the last silent restore began, per tab', () => {
    noteRestore(T0);
    expect(lastRestore()).toBe(T0);
    expect(Object.keys(sessionStorage)).toEqual([names.key('restore-at')]);
    expect(localStorage.length).toBe(0);
  });

  it('a value that is not a number counts as never', () => {
    sessionStorage.setItem(names.key('restore-at'), 'soon');
    expect(lastRestore()).toBe(0);
  });
});

describe('hint', () => {
  it('is nothing at first', () => {
    expect(readHint()).toBeUndefined();
  });

  it('is kept per browser as "1" for a session and "out" after a sign-out, and nothing else', () => {
    writeHint('had-session');
    expect(readHint()).toBe('had-session');
    expect({ ...localStorage }).toEqual({ [names.key('hint')]: '1' });
    writeHint('signed-out');
    expect(readHint()).toBe('signed-out');
    expect({ ...localStorage }).toEqual({ [names.key('hint')]: 'out' });
    expect(sessionStorage.length).toBe(0);
  });

  it('an unknown value means nothing', () => {
    localStorage.setItem(names.key('hint'), 'true');
    expect(readHint()).toBeUndefined();
  });

  it('forgetHint removes it', () => {
    writeHint('had-session');
    forgetHint();
    expect(readHint()).toBeUndefined();
    expect(localStorage.length).toBe(0);
  });
});

it("clearTab forgets this tab's sign-in, sign-out and restore guard, and nothing else", () => {
  savePending(tx('one'));
  saveSignOut('out-state');
  noteRestore(T0);
  sessionStorage.setItem('unrelated', 'x');
  writeHint('had-session');
  clearTab();
  expect(Object.keys(sessionStorage)).toEqual(['unrelated']);
  expect(readHint()).toBe('had-session');
});

describe("a sign-out's return another instance on the page waits for (signedOutOther)", () => {
  const theirs = appStorage({ perTab: sessionStorage, perBrowser: localStorage }, appNames('https://other.example', 'demo-spa'));

  it("is another instance's whose pending sign-out sent that state, never this instance's own", () => {
    theirs.saveSignOut('theirs');
    saveSignOut('mine');
    expect(records.signedOutOther('theirs')).toBe(true);
    expect(records.signedOutOther('mine')).toBe(false);
    expect(records.signedOutOther(null)).toBe(false);
    expect(theirs.takeSignOut('theirs')).toBe(true);
    expect(records.signedOutOther('theirs')).toBe(false);
  });
});

describe('a callback another instance on the page waits for (answersOther)', () => {
  const theirs = appStorage({ perTab: sessionStorage, perBrowser: localStorage }, appNames('https://other.example', 'demo-spa'));

  it("is another app's or provider's whose pending sign-in has that state: theirs to take, left as it is", () => {
    theirs.savePending(tx('theirs'));
    const before = sessionStorage.getItem(appNames('https://other.example', 'demo-spa').key('tx'));
    expect(records.answersOther('theirs')).toBe(true);
    expect(sessionStorage.getItem(appNames('https://other.example', 'demo-spa').key('tx'))).toBe(before);
    expect(theirs.takePending('theirs', T0)).toEqual(tx('theirs'));
  });

  it("is not this instance's own: its own pending sign-in is its to take, even with another's waiting", () => {
    savePending(tx('mine'));
    theirs.savePending(tx('theirs'));
    expect(records.answersOther('mine')).toBe(false);
    expect(theirs.answersOther('mine')).toBe(true);
    expect(takePending('mine', T0)).toEqual(tx('mine'));
  });

  it('is no one when no other sign-in waits with that state, or the response has none', () => {
    expect(records.answersOther('abc')).toBe(false);
    theirs.savePending(tx('theirs'));
    expect(records.answersOther('other')).toBe(false);
    expect(records.answersOther(null)).toBe(false);
    expect(records.answersOther('')).toBe(false);
  });

  it('counts only pending sign-ins of this module: not other keys, a sign-out, or a record that is not JSON', () => {
    sessionStorage.setItem('tx', JSON.stringify({ state: 'abc' }));
    sessionStorage.setItem('my-app:auth:tx', JSON.stringify({ state: 'abc' }));
    theirs.saveSignOut('abc');
    sessionStorage.setItem(`auth:tx ${JSON.stringify(['https://broken.example', 'x'])}`, '{"state":');
    expect(records.answersOther('abc')).toBe(false);
    sessionStorage.setItem(`auth:tx ${JSON.stringify(['https://later.example', 'x'])}`, JSON.stringify({ state: 'abc' }));
    expect(records.answersOther('abc')).toBe(true);
  });
});

describe('names', () => {
  it('carry the issuer and the client id: two apps on one origin share no key, channel or lock', () => {
    const other = [appNames('https://id.example', 'other-spa'), appNames('https://other.example', 'demo-spa')];
    for (const them of other) {
      expect(them.app).not.toBe(names.app);
      expect(them.channel).not.toBe(names.channel);
      expect(them.lock).not.toBe(names.lock);
      expect(them.key('hint')).not.toBe(names.key('hint'));
    }
  });

  it('cannot be made to meet by moving characters between the issuer and the client id', () => {
    expect(appNames('https://id.example/a', 'b').app).not.toBe(appNames('https://id.example', 'a/b').app);
    expect(appNames('a" "b', 'c').key('tx')).not.toBe(appNames('a', 'b" "c').key('tx'));
  });

  it("one app's records are invisible to another's on the same origin", () => {
    const theirs = appStorage({ perTab: sessionStorage, perBrowser: localStorage }, appNames('https://id.example', 'other-spa'));
    savePending(tx('abc'));
    writeHint('had-session');
    saveSignOut('out-state');
    expect(theirs.takePending('abc', T0)).toBeUndefined();
    expect(theirs.readHint()).toBeUndefined();
    expect(theirs.takeSignOut('out-state')).toBe(false);
    theirs.clearTab();
    expect(takePending('abc', T0)).toEqual(tx('abc'));
    expect(readHint()).toBe('had-session');
  });
});

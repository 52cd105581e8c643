// Drafts kept across a step-up: whose, how long, and sent at most once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLAIMS_KEY, DRAFT_LIFE_MS, dropDraft, keepDraft, takeDraft } from './draft';

const KEY = 'test:draft';
const NOW = Date.UTC(2026, 0, 1, 12);
const fields = { title: 'Plan', body: 'Tea at four' };

const stored = () => JSON.parse(sessionStorage.getItem(KEY)!);
const claims = () => JSON.parse(localStorage.getItem(CLAIMS_KEY) ?? 'null');

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
});
afterEach(() => vi.useRealTimers());

describe('keepDraft', () => {
  it('keeps the fields in this tab with whose they are, when, and a random id; nothing in localStorage', () => {
    keepDraft(KEY, 'alice', fields);
    const first = stored();
    expect(first).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), sub: 'alice', at: NOW, fields });
    keepDraft(KEY, 'alice', fields);
    expect(stored().id).not.toBe(first.id);
    expect(localStorage.length).toBe(0);
  });
});

describe('takeDraft', () => {
  it('gives the fields back once to the person who kept them, and takes the draft out of storage', () => {
    keepDraft(KEY, 'alice', fields);
    expect(takeDraft(KEY, 'alice')).toEqual(fields);
    expect(sessionStorage.getItem(KEY)).toBeNull();
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
  });

  it("claims the id in localStorage until the draft's hour ends, holding nothing else", () => {
    keepDraft(KEY, 'alice', fields);
    const { id } = stored();
    vi.setSystemTime(NOW + 5000);
    takeDraft(KEY, 'alice');
    expect(claims()).toEqual({ [id]: NOW + DRAFT_LIFE_MS });
  });

  it('a copy of a claimed draft (a duplicated tab) is dropped, and is not given back', () => {
    keepDraft(KEY, 'alice', fields);
    const copy = sessionStorage.getItem(KEY)!;
    expect(takeDraft(KEY, 'alice')).toEqual(fields);
    sessionStorage.setItem(KEY, copy);
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
    expect(sessionStorage.getItem(KEY)).toBeNull();
  });

  it("someone else's draft is dropped without a claim", () => {
    keepDraft(KEY, 'bob', fields);
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
    expect(sessionStorage.getItem(KEY)).toBeNull();
    expect(claims()).toBeNull();
  });

  it('lives an hour from when it was kept: just before, it is given back; from then on, dropped', () => {
    keepDraft(KEY, 'alice', fields);
    vi.setSystemTime(NOW + DRAFT_LIFE_MS - 1);
    expect(takeDraft(KEY, 'alice')).toEqual(fields);

    keepDraft(KEY, 'alice', fields);
    vi.setSystemTime(Date.now() + DRAFT_LIFE_MS);
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
    expect(sessionStorage.getItem(KEY)).toBeNull();
  });

  it('a draft kept later than now (the clock was set back) is dropped', () => {
    keepDraft(KEY, 'alice', fields);
    vi.setSystemTime(NOW - 1);
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
  });

  it.each([
    ['not JSON', '{'],
    ['null', 'null'],
    ['without an id', JSON.stringify({ sub: 'alice', at: NOW, fields })],
    ['with a long id', JSON.stringify({ id: 'x'.repeat(65), sub: 'alice', at: NOW, fields })],
    ['without a time', JSON.stringify({ id: 'a', sub: 'alice', fields })],
    ['with a field that is not text', JSON.stringify({ id: 'a', sub: 'alice', at: NOW, fields: { title: 1 } })],
    ['the old record without id and time', JSON.stringify({ sub: 'alice', ...fields })],
  ])('what is not a draft (%s) is dropped', (_name, raw) => {
    sessionStorage.setItem(KEY, raw);
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
    expect(sessionStorage.getItem(KEY)).toBeNull();
  });

  it('ended claims are dropped when a new one is made; a broken claims record is written afresh', () => {
    localStorage.setItem(CLAIMS_KEY, JSON.stringify({ ended: NOW, live: NOW + 1, odd: 'x' }));
    keepDraft(KEY, 'alice', fields);
    const { id } = stored();
    takeDraft(KEY, 'alice');
    expect(claims()).toEqual({ live: NOW + 1, [id]: NOW + DRAFT_LIFE_MS });

    localStorage.setItem(CLAIMS_KEY, '[');
    keepDraft(KEY, 'alice', fields);
    const next = stored().id;
    expect(takeDraft(KEY, 'alice')).toEqual(fields);
    expect(claims()).toEqual({ [next]: NOW + DRAFT_LIFE_MS });
  });
});

describe('dropDraft', () => {
  it('forgets the draft', () => {
    keepDraft(KEY, 'alice', fields);
    dropDraft(KEY);
    expect(sessionStorage.getItem(KEY)).toBeNull();
    expect(takeDraft(KEY, 'alice')).toBeUndefined();
  });
});

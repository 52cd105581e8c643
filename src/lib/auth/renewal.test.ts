// Renewal on its own, over a fake clock: when it runs, that it runs once, and what a late answer does.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { AuthError } from './errors';
import type { TokenSet } from './protocol';
import { createRenewal, type RenewalHooks } from './renewal';

let now: number;
const port = { now: () => now };
const tokens = (n: number, expiresIn = 100_000): TokenSet => ({
  accessToken: `at-${n}`,
  refreshToken: `rt-${n}`,
  expiresAt: now + expiresIn,
});

beforeEach(() => {
  vi.useFakeTimers();
  now = 1_000_000;
});
afterEach(() => vi.useRealTimers());

function setup(refresh: RenewalHooks['refresh']) {
  const hooks = { refresh: vi.fn(refresh), renewed: vi.fn(), expired: vi.fn() };
  return { hooks, renewal: createRenewal(port, hooks) };
}

it('a timer that fires early (the clock says not yet) waits again instead of renewing', async () => {
  const { hooks, renewal } = setup(async () => tokens(2));
  renewal.adopt(tokens(1));
  // The timer fires, but the page's clock has not reached the renewal time (a clock change, a throttled tab).
  await vi.advanceTimersByTimeAsync(80_000);
  expect(hooks.refresh).not.toHaveBeenCalled();
  // It waits the remaining time by the page's clock, then renews.
  now += 80_000;
  await vi.advanceTimersByTimeAsync(80_000);
  expect(hooks.refresh).toHaveBeenCalledTimes(1);
});

it('concurrent renewals share one refresh', async () => {
  let answer!: (t: TokenSet) => void;
  const { hooks, renewal } = setup(() => new Promise((resolve) => (answer = resolve)));
  renewal.adopt(tokens(1));
  const both = Promise.all([renewal.renew(true), renewal.renew(true)]);
  answer(tokens(2));
  expect(await both).toEqual([true, true]);
  expect(hooks.refresh).toHaveBeenCalledTimes(1);
  expect(hooks.renewed).toHaveBeenCalledTimes(1);
  expect(renewal.current()?.accessToken).toBe('at-2');
});

it('a failure that arrives after the session ended (signed out meanwhile) changes nothing', async () => {
  let fail!: (e: unknown) => void;
  const { hooks, renewal } = setup(() => new Promise((_, reject) => (fail = reject)));
  renewal.adopt(tokens(1));
  const renewing = renewal.renew(true);
  renewal.drop();
  fail(new AuthError('invalid_grant'));
  expect(await renewing).toBe(false);
  expect(hooks.expired).not.toHaveBeenCalled();
});

it('an answer that arrives after the session ended is not adopted', async () => {
  let answer!: (t: TokenSet) => void;
  const { hooks, renewal } = setup(() => new Promise((resolve) => (answer = resolve)));
  renewal.adopt(tokens(1));
  const renewing = renewal.renew(true);
  renewal.drop();
  answer(tokens(2));
  expect(await renewing).toBe(false);
  expect(renewal.current()).toBeUndefined();
  expect(hooks.renewed).not.toHaveBeenCalled();
});

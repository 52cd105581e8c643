// Renewal on its own, over a fake clock: when it runs, that it runs once, and what a late answer does.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthError } from './errors';
import type { TokenSet } from './protocol';
import { exchange } from './exchange';
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

describe('exchange: another refresh-token grant of the session', () => {
  it('waits for a renewal under way, then runs with the renewed tokens', async () => {
    let answer!: (t: TokenSet) => void;
    const { renewal } = setup(() => new Promise((resolve) => (answer = resolve)));
    renewal.adopt(tokens(1));
    const renewing = renewal.renew(true);
    const run = vi.fn(async (current: TokenSet) => ({ result: current.refreshToken }));
    const exchanged = exchange(renewal, run);
    await Promise.resolve();
    expect(run).not.toHaveBeenCalled();
    answer(tokens(2));
    expect(await renewing).toBe(true);
    expect(await exchanged).toBe('rt-2');
  });

  it('a renewal asked for during an exchange waits for it, and uses the refresh token it rotated', async () => {
    const { hooks, renewal } = setup(async (current) => ({ ...tokens(3), refreshToken: `after-${current.refreshToken}` }));
    renewal.adopt(tokens(1));
    let finish!: () => void;
    const exchanged = exchange(renewal, async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return { result: 'api-token', refreshToken: 'rt-rotated' };
    });
    const renewing = renewal.renew(false);
    await Promise.resolve();
    expect(hooks.refresh).not.toHaveBeenCalled();
    finish();
    expect(await exchanged).toBe('api-token');
    expect(await renewing).toBe(true);
    expect(hooks.refresh.mock.calls[0][0].refreshToken).toBe('rt-rotated');
    expect(renewal.current()?.refreshToken).toBe('after-rt-rotated');
  });

  it('a rotated refresh token becomes the session’s; the access token stays', async () => {
    const { renewal } = setup(async () => tokens(2));
    const session = tokens(1);
    renewal.adopt(session);
    await exchange(renewal, async () => ({ result: null, refreshToken: 'rt-new' }));
    expect(renewal.current()).toBe(session);
    expect(renewal.current()).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-new' });
    // No refresh token in the answer: the one the session has stays valid (RFC 6749 §6).
    await exchange(renewal, async () => ({ result: null }));
    expect(renewal.current()?.refreshToken).toBe('rt-new');
  });

  it('a session that ended meanwhile: aborted, and nothing of the answer is kept', async () => {
    const { renewal } = setup(async () => tokens(2));
    renewal.adopt(tokens(1));
    let finish!: () => void;
    const exchanged = exchange(renewal, async (_current, signal) => {
      await new Promise<void>((resolve) => (finish = resolve));
      expect(signal.aborted).toBe(true);
      return { result: 'late', refreshToken: 'rt-late' };
    });
    renewal.drop();
    renewal.adopt(tokens(5));
    finish();
    await expect(exchanged).rejects.toMatchObject({ code: 'aborted' });
    expect(renewal.current()?.refreshToken).toBe('rt-5');
  });

  it('without a session: unauthenticated; a failed exchange does not block the next renewal', async () => {
    const { renewal } = setup(async () => tokens(2));
    await expect(exchange(renewal, async () => ({ result: 1 }))).rejects.toMatchObject({ code: 'unauthenticated' });
    renewal.adopt(tokens(1));
    await expect(exchange(renewal, () => Promise.reject(new AuthError('token_error')))).rejects.toMatchObject({
      code: 'token_error',
    });
    expect(await renewal.renew(true)).toBe(true);
  });
});

// The warning before a session that cannot renew ends: the time left in whole minutes, and Stay signed
// in acting on its click (a press alone does nothing), shown by SessionNotices only while signed in.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessionState, type SessionState } from '../lib/auth/svelte/session';
import SessionEnding from './SessionEnding.svelte';
import SessionNotices from './SessionNotices.svelte';

afterEach(() => vi.useRealTimers());

describe('SessionEnding', () => {
  it('says the minutes left, then less than a minute, as the clock goes', async () => {
    vi.useFakeTimers();
    render(SessionEnding, { props: { endsAt: Date.now() + 3 * 60_000 + 500, onstay: () => {} } });
    expect(screen.getByRole('alert').textContent).toContain('Your session ends in 3 minutes.');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(screen.getByRole('alert').textContent).toContain('Your session ends in 2 minutes.');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(screen.getByRole('alert').textContent).toContain('Your session ends in 1 minute.');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(screen.getByRole('alert').textContent).toContain('Your session ends in less than a minute.');
  });

  it('Stay signed in acts on its click, not on the press before it', async () => {
    const onstay = vi.fn();
    render(SessionEnding, { props: { endsAt: Date.now() + 60_000, onstay } });
    const stay = screen.getByRole('button', { name: 'Stay signed in' });
    await fireEvent.pointerDown(stay);
    await fireEvent.mouseDown(stay);
    expect(onstay).not.toHaveBeenCalled();
    expect(stay.isConnected).toBe(true);
    await fireEvent.click(stay);
    expect(onstay).toHaveBeenCalledOnce();
  });
});

describe('SessionNotices', () => {
  const signedIn = (endsAt: number | null): SessionState => ({
    ...sessionState('signed-in', null, true),
    user: { sub: 'alice' },
    expiresAt: Date.now() + 60_000,
    endsAt,
  });
  const show = (session: SessionState) => render(SessionNotices, { props: { session, onretry: () => {}, onstay: () => {} } });

  it('shows the warning while the signed-in session has an end, and nothing of it otherwise', () => {
    show(signedIn(Date.now() + 120_000));
    expect(screen.getByRole('alert').textContent).toContain('Your session ends in');
  });

  it.each([
    ['a session that renews by itself', signedIn(null)],
    ['an expired session', { ...sessionState('expired', { code: 'session_expired' }, true), endsAt: Date.now() }],
  ])('%s: no warning', (_, session) => {
    show(session as SessionState);
    expect(screen.queryByText(/Your session ends in/)).toBeNull();
  });
});

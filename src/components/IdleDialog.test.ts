// The idle warning: an alertdialog named and described, focus moved into it and back, the countdown as
// text, and Stay signed in or Escape keeping the session (auth.stayActive); nothing without a warning.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import IdleDialog from './IdleDialog.svelte';

function show(remainingMs: number) {
  const auth = createTestAuth({ idle: { warning: true, remainingMs } });
  const stayActive = vi.spyOn(auth, 'stayActive');
  render(IdleDialog, { auth });
  return { auth, stayActive };
}

describe('IdleDialog', () => {
  it('is an alertdialog named and described by its text, with focus on Stay signed in', async () => {
    const outside = document.body.appendChild(document.createElement('button'));
    outside.focus();
    const { stayActive } = show(42_000);
    const dialog = screen.getByRole('alertdialog', { name: 'Are you still there?' });
    const description = document.getElementById(dialog.getAttribute('aria-describedby')!);
    expect(description?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'For your security you will be signed out in 42 seconds without activity.',
    );
    const stay = screen.getByRole('button', { name: 'Stay signed in' });
    expect(document.activeElement).toBe(stay);
    await fireEvent.click(stay);
    expect(stayActive).toHaveBeenCalledOnce();
    // The warning is over: the dialog goes, and focus goes back where it was.
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(outside);
    outside.remove();
  });

  it('Escape keeps the session; other keys do not close it', async () => {
    const { stayActive } = show(2_000);
    const dialog = screen.getByRole('alertdialog');
    await fireEvent.keyDown(dialog, { key: 'Enter' });
    expect(stayActive).not.toHaveBeenCalled();
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(stayActive).toHaveBeenCalledOnce();
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it.each([
    [1_000, '1 second'],
    [2_500, '3 seconds'],
    [59_001, '1:00 minutes'],
    [65_000, '1:05 minutes'],
    [600_000, '10:00 minutes'],
  ])('%i ms left reads "%s"', (ms, text) => {
    show(ms);
    expect(document.querySelector('[data-idle-left]')?.textContent).toBe(text);
  });

  it('shows nothing without a warning', () => {
    render(IdleDialog, { auth: createTestAuth() });
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});

// Every failure: role="alert", a human message chosen by the code, the OAuth code in data-error-code,
// server text rendered as text, and a button that starts a fresh attempt.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import ErrorAlert from './ErrorAlert.svelte';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script><b>bold</b>';

describe('ErrorAlert', () => {
  it('shows a human message, the OAuth error code and "Try again"', async () => {
    const onretry = vi.fn();
    render(ErrorAlert, { error: { code: 'invalid_grant', oauthError: 'invalid_grant' }, onretry });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toMatch(/rejected or has expired/);
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('invalid_grant');
    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onretry).toHaveBeenCalledTimes(1);
  });

  it('a cancelled sign-in says so', () => {
    render(ErrorAlert, { error: { code: 'cancelled', oauthError: 'access_denied' }, onretry: () => {} });
    expect(screen.getByRole('alert').textContent).toContain('cancelled');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('renders server-supplied text as text: markup stays literal and creates no elements', () => {
    render(ErrorAlert, {
      error: { code: 'token_error', oauthError: HOSTILE, description: HOSTILE },
      onretry: () => {},
    });
    const alert = screen.getByRole('alert');
    expect(alert.querySelectorAll('img, script, b').length).toBe(0);
    // An OAuth error code is short: cut to 64 characters, literal.
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe(`${HOSTILE.slice(0, 63)}…`);
    expect(alert.textContent).toContain(HOSTILE);
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('cleans server text for display: invisible and direction-changing characters go, the length is bounded', () => {
    const description = `pay \u202eevil\u202c now\u200b${'x'.repeat(500)}`;
    render(ErrorAlert, { error: { code: 'token_error', oauthError: 'bad\u2066code', description }, onretry: () => {} });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).not.toMatch(/[\u200b\u202a-\u202e\u2066]/);
    expect(alert.textContent).toContain('pay evil now');
    expect(alert.querySelector('[data-error-code]')?.textContent).toBe('badcode');
    expect(alert.textContent!.length).toBeLessThan(500);
  });

  it.each([
    ['the OAuth error_description', { description: 'The code has expired.' }, 'The code has expired.'],
    ['the start of an HTTP error response', { text: 'Service Unavailable' }, 'Service Unavailable'],
    ['the description rather than the response text', { description: 'Scope missing.', text: 'ignored' }, 'Scope missing.'],
  ])('shows %s as "The service said"', (_name, details, said) => {
    render(ErrorAlert, { error: { code: 'http_error', status: 503, ...details }, onretry: () => {} });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain(`The service said: “${said}”`);
    expect(alert.textContent).not.toContain('ignored');
  });

  it('without server text there is no "The service said" line', () => {
    render(ErrorAlert, { error: { code: 'http_error', status: 500 }, onretry: () => {} });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('HTTP 500');
    expect(alert.textContent).not.toContain('The service said');
  });

  it('an expired session offers "Sign in again"', async () => {
    const onretry = vi.fn();
    render(ErrorAlert, { error: { code: 'session_expired' }, onretry });
    await fireEvent.click(screen.getByRole('button', { name: 'Sign in again' }));
    expect(onretry).toHaveBeenCalledTimes(1);
  });

  it('without an OAuth error code there is no data-error-code element', () => {
    render(ErrorAlert, { error: { code: 'timeout', host: 'localhost:9010' }, onretry: () => {} });
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('[data-error-code]')).toBeNull();
    expect(alert.textContent).toContain('localhost:9010');
  });

  it.each([
    'cancelled',
    'authorization_failed',
    'invalid_grant',
    'token_error',
    'invalid_response',
    'unreachable',
    'timeout',
  ] as const)('a %s failure offers "Try again"', (code) => {
    render(ErrorAlert, { error: { code }, onretry: () => {} });
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

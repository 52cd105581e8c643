// What people read when something fails: chosen by the error code, never taken from a server.
import { describe, expect, it } from 'vitest';
import type { AuthErrorCode } from './auth';
import { describeError } from './messages';

const CODES: AuthErrorCode[] = [
  'cancelled',
  'authorization_failed',
  'login_required',
  'unknown_transaction',
  'invalid_grant',
  'token_error',
  'invalid_response',
  'unreachable',
  'timeout',
  'session_expired',
  'insufficient_scope',
  'insufficient_user_authentication',
  'step_up_failed',
  'account_changed',
  'interaction_required',
  'forbidden_origin',
  'unauthenticated',
  'http_error',
  'aborted',
  'param_not_allowed',
  'discovery_failed',
];

describe('describeError', () => {
  it.each(CODES)('%s has a human title', (code) => {
    expect(describeError(code).title).toMatch(/^[A-Z].{8,}[.]$/);
  });

  it('a cancelled sign-in says "cancelled"', () => {
    expect(describeError('cancelled').title.toLowerCase()).toContain('cancelled');
  });

  it('invalid_grant says the code was rejected or expired', () => {
    expect(describeError('invalid_grant').title).toMatch(/rejected|expired/);
  });

  it.each(['unreachable', 'timeout', 'invalid_response', 'discovery_failed'] as const)('%s names the host', (code) => {
    expect(describeError(code, '127.0.0.1:9011').title).toContain('127.0.0.1:9011');
  });

  it('an answer this tab was not waiting for says it was not used, and is gone from the address bar', () => {
    const { title, hint } = describeError('unknown_transaction');
    expect(title).toBe('That sign-in link was not used.');
    expect(hint).toContain('gone from the address bar');
  });

  it.each(['param_not_allowed', 'discovery_failed'] as const)('%s says nothing was sent', (code) => {
    expect(describeError(code).hint).toMatch(/^Nothing was sent\./);
  });

  it.each([
    [600_000, 'You were signed out after 10 minutes without activity.'],
    [60_000, 'You were signed out after 1 minute without activity.'],
    [6_000, 'You were signed out after 6 seconds without activity.'],
    [1_000, 'You were signed out after 1 second without activity.'],
    [undefined, 'You were signed out after some time without activity.'],
  ])('the idle notice for %s ms says how long', (ms, title) => {
    expect(describeError('idle_timeout', undefined, undefined, ms)).toMatchObject({ title, action: 'Sign in' });
  });

  it('a step-up answered by another account says the session is unchanged, and offers a sign-in', () => {
    const { title, hint, action } = describeError('account_changed');
    expect(title).toContain('someone else');
    expect(hint).toContain('your session here is unchanged');
    expect(action).toBe('Sign in');
  });

  it('an HTTP error mentions its status', () => {
    expect(describeError('http_error', undefined, 503).title).toContain('503');
  });
});

// AuthError and its codes (errors.ts): what a store may hold, server text bounded, a bug shown then
// thrown on, and the sign-in an error asks for.
import { describe, expect, it, vi } from 'vitest';
import { AuthError, authErrorOrShow, bounded, publicError, stepUpFor } from './errors';

it('authErrorOrShow shows a bug as invalid_response, so no view waits forever, and throws it on', () => {
  const show = vi.fn();
  const bug = new TypeError('oops');
  expect(() => authErrorOrShow(bug, show)).toThrow(bug);
  expect(show).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ code: 'invalid_response' }));
  expect(authErrorOrShow(new AuthError('timeout'), show).code).toBe('timeout');
  expect(show).toHaveBeenCalledTimes(1);
});

it('what a store holds has the details but never the cause', () => {
  const err = new AuthError('http_error', { status: 500, text: 'no' }, new Error('with a secret'));
  const shown = publicError(err);
  expect(shown).toMatchObject({ code: 'http_error', status: 500, text: 'no' });
  expect(shown.cause).toBeUndefined();
  expect(JSON.stringify(err.toJSON())).not.toContain('secret');
});

it('server text is only cut to length, never altered: cleaning it for display is the view’s job', () => {
  const description = `<b>\u202e${'x'.repeat(300)}`;
  expect(bounded(description, 200)).toBe(description.slice(0, 200));
  expect(bounded('short', 200)).toBe('short');
});

describe('stepUpFor', () => {
  it('asks for the scope a resource named', () => {
    expect(stepUpFor(new AuthError('insufficient_scope', { scope: 'notes.write' }))).toEqual({ scope: 'notes.write' });
    expect(stepUpFor(new AuthError('interaction_required', { scope: 'notes.read' }))).toEqual({ scope: 'notes.read' });
  });

  it("names the API the scope is for, so the sign-in records it for that API's grants alone", () => {
    const resource = 'https://notes.example/';
    expect(stepUpFor(new AuthError('insufficient_scope', { scope: 'notes.write', resource }))).toEqual({
      scope: 'notes.write',
      resource,
    });
    expect(stepUpFor(new AuthError('interaction_required', { scope: 'notes.read', resource }))).toEqual({
      scope: 'notes.read',
      resource,
    });
  });

  it('offers no sign-in for a scope the configuration does not let the resource ask (scope_not_allowed)', () => {
    expect(stepUpFor(new AuthError('scope_not_allowed', { oauthError: 'insufficient_scope', status: 403 }))).toBeUndefined();
    expect(stepUpFor({ code: 'scope_not_allowed', scope: 'admin' })).toBeUndefined();
  });

  it('asks for a plain interactive sign-in when a grant needs the person without naming a scope', () => {
    expect(stepUpFor(new AuthError('interaction_required'))).toEqual({});
  });

  it('asks for a stronger or fresher sign-in as RFC 9470 says, a fresh one when the resource gives no hint', () => {
    expect(stepUpFor(new AuthError('insufficient_user_authentication', { acr_values: 'mfa', max_age: 60 }))).toEqual({
      acr_values: 'mfa',
      max_age: 60,
    });
    expect(stepUpFor(new AuthError('insufficient_user_authentication', { acr_values: 'mfa' }))).toEqual({ acr_values: 'mfa' });
    expect(stepUpFor(new AuthError('insufficient_user_authentication'))).toEqual({ max_age: 0 });
  });

  it('is undefined where no sign-in mends the error, an insufficient_scope without a valid scope included', () => {
    for (const code of ['insufficient_scope', 'session_expired', 'http_error', 'unreachable', 'forbidden_origin'] as const) {
      expect(stepUpFor(new AuthError(code))).toBeUndefined();
    }
  });
});

// The step-up alert: the whole list of what the API asked for (the person consents to all of it), and
// Grant access asking for exactly that, for the API it names, returning to the page.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { AuthError, authContext } from '../lib/auth';
import { createTestAuth } from '../lib/auth/testing';
import StepUpAlert from './StepUpAlert.svelte';

const RESOURCE = 'https://notes.example/';

function renderAlert(error: AuthError, onleave?: () => void) {
  const auth = createTestAuth();
  const signIn = vi.spyOn(auth, 'signIn').mockResolvedValue();
  render(StepUpAlert, { props: { error, returnTo: '/notes', onleave }, context: authContext(auth) });
  return { signIn };
}

describe('StepUpAlert', () => {
  it('shows the whole list the API asked for, however long a valid list is, as text', () => {
    const scope = Array.from({ length: 50 }, (_, i) => `notes.s${i}`).join(' ');
    expect(scope.length).toBeGreaterThan(400);
    renderAlert(new AuthError('insufficient_scope', { scope, resource: RESOURCE }));
    const shown = screen.getByRole('alert').querySelector('[data-scope]')!;
    expect(shown.textContent).toBe(scope);
    expect(shown.children).toHaveLength(0);
  });

  it('Grant access asks for that scope for the API it names, once the page has kept what it keeps', async () => {
    const onleave = vi.fn();
    const { signIn } = renderAlert(new AuthError('insufficient_scope', { scope: 'notes.write', resource: RESOURCE }), onleave);
    await fireEvent.click(screen.getByRole('button', { name: 'Grant access' }));
    expect(onleave).toHaveBeenCalledOnce();
    expect(signIn).toHaveBeenCalledExactlyOnceWith({ scope: 'notes.write', resource: RESOURCE, returnTo: '/notes' });
  });
});

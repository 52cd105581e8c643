// Issue 2: a bad config.json shows a clear configuration error page naming the key.
import '@testing-library/svelte/vitest';
import { render, screen } from '@testing-library/svelte';
import { expect, it } from 'vitest';
import ConfigErrorPage from './ConfigErrorPage.svelte';

it('names the key and the problem in an alert', () => {
  render(ConfigErrorPage, { key: 'authUrl', problem: 'must be an https URL' });
  const alert = screen.getByRole('alert');
  expect(alert.querySelector('[data-config-key]')?.textContent).toBe('authUrl');
  expect(alert.textContent).toContain('must be an https URL');
  expect(screen.getByRole('heading').textContent).toMatch(/not configured correctly/);
});

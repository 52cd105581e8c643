// A bad config.json shows a clear configuration error page naming the key, as text, with a way forward.
import '@testing-library/svelte/vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import { expect, it, vi } from 'vitest';
import { ConfigError } from '../config';
import ConfigErrorPage from './ConfigErrorPage.svelte';

it('names the key and the problem in an alert, as text', () => {
  render(ConfigErrorPage, { error: new ConfigError('authUrl', 'must be an https URL <b>x</b>') });
  const alert = screen.getByRole('alert');
  expect(alert.querySelector('[data-config-key]')?.textContent).toBe('authUrl');
  expect(alert.textContent).toContain('must be an https URL <b>x</b>');
  expect(alert.querySelector('b')).toBeNull();
  expect(screen.getByRole('heading').textContent).toMatch(/not configured correctly/);
});

it('"Reload" reloads the page, to read a fixed config.json', async () => {
  const reload = vi.spyOn(location, 'reload').mockImplementation(() => {});
  render(ConfigErrorPage, { error: new ConfigError('authUrl', 'must be an https URL') });
  await fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
  expect(reload).toHaveBeenCalledTimes(1);
});

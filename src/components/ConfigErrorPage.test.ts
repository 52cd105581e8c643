// Issue 2: a bad config.json shows a clear configuration error page naming the key.
import '@testing-library/svelte/vitest';
import { fireEvent, screen } from '@testing-library/svelte';
import { beforeEach, expect, it, vi } from 'vitest';
import html from '../../index.html?raw';
import { ConfigError } from '../config';
import { showConfigError } from './config-error-page';

let target: HTMLElement;

beforeEach(() => {
  // The page as index.html delivers it: the app's mount point and the template.
  document.body.innerHTML = new DOMParser().parseFromString(html, 'text/html').body.innerHTML;
  target = document.getElementById('app')!;
  target.textContent = 'half-started app';
});

it('names the key and the problem in an alert, as text, replacing what was shown', () => {
  showConfigError(target, new ConfigError('authUrl', 'must be an https URL <b>x</b>'));
  const alert = screen.getByRole('alert');
  expect(alert.querySelector('[data-config-key]')?.textContent).toBe('authUrl');
  expect(alert.textContent).toContain('must be an https URL <b>x</b>');
  expect(alert.querySelector('b')).toBeNull();
  expect(screen.getByRole('heading').textContent).toMatch(/not configured correctly/);
  expect(target.textContent).not.toContain('half-started app');
});

it('"Reload" reloads the page, to read a fixed config.json', async () => {
  const reload = vi.spyOn(location, 'reload').mockImplementation(() => {});
  showConfigError(target, new ConfigError('authUrl', 'must be an https URL'));
  await fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
  expect(reload).toHaveBeenCalledTimes(1);
});

it('can show a second error without leaving the first', () => {
  showConfigError(target, new ConfigError('authUrl', 'first'));
  showConfigError(target, new ConfigError('clientId', 'second'));
  expect(screen.getAllByRole('alert')).toHaveLength(1);
  expect(screen.getByRole('alert').textContent).toContain('second');
});

// Any other address: the not-found page.
import '@testing-library/svelte/vitest';
import { screen } from '@testing-library/svelte';
import { expect, it } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import { renderView } from '../testing/render';
import NotFound from './NotFound.svelte';

it('an unknown address shows the not-found page with a way back', () => {
  renderView(NotFound, createTestAuth({ user: null }));
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Page not found');
  expect(screen.getByRole('link', { name: 'Go to the start page' }).getAttribute('href')).toBe('#/');
});

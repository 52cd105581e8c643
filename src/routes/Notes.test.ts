// The notes page of the demo: the examples/notes view at the demo API's notes, or why there is none.
import '@testing-library/svelte/vitest';
import { screen } from '@testing-library/svelte';
import { expect, it } from 'vitest';
import { createTestAuth } from '../lib/auth/testing';
import { ALICE, API_ORIGIN, renderView, testConfig } from '../testing/render';
import Notes from './Notes.svelte';
import NotFound from './NotFound.svelte';

it("embeds the notes view at the notes beside apiUrl, and it loads them with the person's token", async () => {
  const requests: string[] = [];
  const auth = createTestAuth({
    user: ALICE,
    apiOrigins: [API_ORIGIN],
    handler: (request) => {
      requests.push(request.url);
      return Response.json({ items: [{ id: '1', title: 'First note' }] });
    },
  });
  renderView(Notes, auth);
  expect(await screen.findByRole('button', { name: 'First note' })).toBeTruthy();
  expect(requests).toEqual([`${API_ORIGIN}/api/notes`]);
});

it('without apiUrl says there is no notes API to call', () => {
  const { apiUrl: _none, ...config } = testConfig();
  renderView(Notes, createTestAuth({ user: ALICE }), { ...config, apiUrl: undefined });
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Your notes');
  expect(document.body.textContent).toContain('No apiUrl is configured');
});

it('an unknown address shows the not-found page with a way back', () => {
  renderView(NotFound, createTestAuth({ user: null }));
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Page not found');
  expect(screen.getByRole('link', { name: 'Go to the start page' }).getAttribute('href')).toBe('#/');
});

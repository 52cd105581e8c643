// returnTo is honoured only for the app's own pages (derived from the route table); nothing may lead off the origin.
import { describe, expect, it } from 'vitest';
import { appRoute, routes } from '.';

const pages = Object.keys(routes).filter((path) => path !== '/signin' && path !== '*');

describe('appRoute', () => {
  it('the route table has the pages a sign-in may return to', () => {
    expect(pages).toEqual(['/', '/profile', '/api', '/notes']);
  });

  it.each(pages)('%s is an app route, with or without a query', (path) => {
    expect(appRoute(path)).toBe(path);
    expect(appRoute(`${path}?x=1&y=a%20b`)).toBe(`${path}?x=1&y=a%20b`);
  });

  it.each(['/profile/', '/api/'])('%s (trailing slash) is the same page', (path) => {
    expect(appRoute(path)).toBe(path);
  });

  it('takes a route as the router shows it: dot segments name no page', () => {
    expect(appRoute('/x/../api')).toBeUndefined();
  });

  it.each([
    null,
    undefined,
    '',
    'profile',
    '/signin',
    '/signin?returnTo=/signin',
    '/SIGNIN',
    '/nowhere',
    '/api/x',
    '/profile/../signin',
    '//evil.example',
    '//evil.example/profile',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example/profile',
    'javascript:alert(1)',
    '/..//evil.example',
    '/.//evil.example',
    '/\t/evil.example',
    '/api?' + 'x'.repeat(600),
    '/' + 'x'.repeat(600),
  ])('%j is not', (input) => {
    expect(appRoute(input)).toBeUndefined();
  });
});

describe('lazy routes', () => {
  it.each(['/signin', '/api', '/notes', '*'])('%s loads its page on demand', async (path) => {
    const route = routes[path as keyof typeof routes] as { component: () => Promise<{ default: unknown }> };
    expect(typeof (await route.component()).default).toBe('function');
  });
});

// returnTo is honoured only for the app's own pages (derived from the route table); nothing may lead off the origin.
import { describe, expect, it } from 'vitest';
import { appRoute, routes } from '.';
import { safeRoute } from '../lib/auth';

const pages = Object.keys(routes).filter((path) => path !== '/signin' && path !== '*');

describe('appRoute', () => {
  it('the route table has the pages a sign-in may return to', () => {
    expect(pages).toEqual(['/', '/profile', '/api']);
  });

  it.each(pages)('%s is an app route, with or without a query', (path) => {
    expect(appRoute(path)).toBe(path);
    expect(appRoute(`${path}?x=1&y=a%20b`)).toBe(`${path}?x=1&y=a%20b`);
  });

  it.each(['/profile/', '/api/'])('%s (trailing slash) is the same page', (path) => {
    expect(appRoute(path)).toBe(path);
  });

  it('normalises dot segments to the page they name', () => {
    expect(appRoute('/x/../api')).toBe('/api');
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

describe('safeRoute', () => {
  it.each(['//evil.example', '/\\evil.example', 'https://evil.example', ' /profile', 42, '/' + 'x'.repeat(600)])(
    '%j is refused',
    (input) => {
      expect(safeRoute(input)).toBeUndefined();
    },
  );

  it.each(['/..//evil.example', '/.//evil.example', '/a/..//evil.example', '/\t/evil.example', '/\n/evil.example'])(
    '%j never yields a route starting with //',
    (input) => {
      const route = safeRoute(input);
      expect(route === undefined || !route.startsWith('//')).toBe(true);
    },
  );

  it('keeps path and query of an app route', () => {
    expect(safeRoute('/api?x=1')).toBe('/api?x=1');
  });
});

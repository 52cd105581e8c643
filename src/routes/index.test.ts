// Issue 2: returnTo is honoured only for the app's own routes; nothing may lead off the origin.
import { describe, expect, it } from 'vitest';
import { appRoute } from '.';
import { safeRoute } from '../lib/auth';

describe('appRoute', () => {
  it.each([
    ['/', '/'],
    ['/profile', '/profile'],
    ['/api', '/api'],
    ['/api?x=1', '/api?x=1'],
  ])('%s is an app route', (input, route) => {
    expect(appRoute(input)).toBe(route);
  });

  it.each([
    null,
    undefined,
    '',
    'profile',
    '/signin',
    '/signin?returnTo=/signin',
    '/nowhere',
    '//evil.example',
    '//evil.example/profile',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example/profile',
    'javascript:alert(1)',
    '/..//evil.example',
    '/\t/evil.example',
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

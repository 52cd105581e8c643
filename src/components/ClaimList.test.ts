// Issue 2: each claim in an element with data-claim, an absent one shown as "—".
import '@testing-library/svelte/vitest';
import { render } from '@testing-library/svelte';
import { expect, it } from 'vitest';
import ClaimList from './ClaimList.svelte';

const claim = (container: HTMLElement, name: string) => container.querySelector(`[data-claim="${name}"]`)?.textContent;

it('shows the four claims', () => {
  const { container } = render(ClaimList, {
    profile: { sub: 'alice-sub', email: 'alice@example.test', name: 'Alice Liddell', preferred_username: 'alice' },
  });
  expect(claim(container, 'sub')).toBe('alice-sub');
  expect(claim(container, 'email')).toBe('alice@example.test');
  expect(claim(container, 'name')).toBe('Alice Liddell');
  expect(claim(container, 'preferred_username')).toBe('alice');
});

it('shows "—" for absent claims', () => {
  const { container } = render(ClaimList, { profile: { sub: 'alice-sub' } });
  expect(claim(container, 'sub')).toBe('alice-sub');
  for (const name of ['email', 'name', 'preferred_username']) expect(claim(container, name)).toBe('—');
});

it('labels every value for people', () => {
  const { container } = render(ClaimList, { profile: { sub: 's' } });
  for (const value of container.querySelectorAll('[data-claim]')) {
    expect(value.previousElementSibling?.tagName).toBe('DT');
    expect(value.previousElementSibling?.textContent?.trim()).not.toBe('');
  }
});

it('renders claim values as text', () => {
  const { container } = render(ClaimList, { profile: { sub: 's', name: '<img src=x onerror=alert(1)>' } });
  expect(container.querySelector('img')).toBeNull();
  expect(claim(container, 'name')).toBe('<img src=x onerror=alert(1)>');
});

// Handing one auth instance down a component tree: setAuth in a root, authContext in mount/render.
import '@testing-library/svelte/vitest';
import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { authContext } from '..';
import AuthRoot from '../__fixtures__/AuthRoot.svelte';
import SignedInAs from '../__fixtures__/SignedInAs.svelte';
import { createTestAuth } from '../testing';

describe('auth context', () => {
  it('getAuth without an instance from a parent throws an error that names both ways to provide one', () => {
    const failure = (() => {
      try {
        render(SignedInAs);
      } catch (err) {
        return err as Error;
      }
    })();
    expect(failure?.message).toMatch(/^getAuth\(\)/);
    expect(failure?.message).toContain('authContext(auth)');
    expect(failure?.message).toContain('setAuth(auth)');
  });

  it("authContext(auth) is render's context: the view gets that instance", () => {
    render(SignedInAs, { context: authContext(createTestAuth({ user: { name: 'Alice' } })) });
    expect(screen.getByText('signed-in: Alice')).toBeTruthy();
  });

  it('setAuth in a root component reaches the views below it', () => {
    render(AuthRoot, { props: { auth: createTestAuth({ user: null }) } });
    expect(screen.getByText('signed-out: nobody')).toBeTruthy();
  });

  it('each tree gets its own instance', () => {
    render(SignedInAs, { context: authContext(createTestAuth({ user: { name: 'Alice' } })) });
    render(SignedInAs, { context: authContext(createTestAuth({ user: { name: 'Bob' } })) });
    expect(screen.getByText('signed-in: Alice')).toBeTruthy();
    expect(screen.getByText('signed-in: Bob')).toBeTruthy();
  });
});

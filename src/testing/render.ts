// Renders a view the way App.svelte hands it its context: an auth instance and the app's config.
import { render } from '@testing-library/svelte';
import { fromStore, writable } from 'svelte/store';
import type { Component } from 'svelte';
import { vi } from 'vitest';
import { authContext, type Auth, type SessionState } from '../lib/auth';
import { createTestAuth } from '../lib/auth/testing';
import { configContext, parseConfig, type AppConfig } from '../config';

export const APP_URL = 'http://localhost:5173/';
export const API_ORIGIN = 'http://127.0.0.1:9012';
export const API_URL = `${API_ORIGIN}/api/greeting`;
export const ALICE = { sub: 'alice-sub', name: 'Alice Liddell', preferred_username: 'alice', email: 'alice@example.test' };

/** A config as main.ts would load it: the local provider's origins, with `overrides` on top. */
export function testConfig(overrides: Record<string, unknown> = {}): AppConfig {
  const raw = {
    accountUrl: 'http://localhost:9010',
    authUrl: 'http://127.0.0.1:9011',
    clientId: 'demo-spa',
    apiOrigins: [API_ORIGIN],
    apiUrl: API_URL,
    ...overrides,
  };
  return parseConfig(raw, APP_URL);
}

export function renderView(view: Component, auth: Auth, config: AppConfig = testConfig()) {
  return render(view, { context: new Map<symbol, unknown>([...authContext(auth), ...configContext(config)]) });
}

/** Puts the router at `hash`: svelte-spa-router reads the location on hashchange. */
export function at(hash: string): void {
  history.replaceState(null, '', hash);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

/** A session state; the person is `known` where production always knows one (signed in, expired) unless `rest` says. */
export const session = (status: SessionState['status'], rest: Partial<SessionState> = {}): SessionState => ({
  status,
  user: null,
  expiresAt: null,
  error: null,
  known: status === 'signed-in' || status === 'expired',
  offline: false,
  endsAt: null,
  ...rest,
});

/**
 * An Auth whose session the test sets, for states createTestAuth never reaches (loading, redirecting,
 * error). signIn and signOut are mocks that change nothing by themselves; fetch and resource() stay signed out.
 */
export function scriptedAuth(initial: SessionState) {
  const store = writable(initial);
  const reactive = fromStore(store);
  const auth: Auth = {
    ...createTestAuth({ user: null }),
    session: {
      subscribe: store.subscribe,
      get current() {
        return reactive.current;
      },
    },
    signIn: vi.fn(async () => {}),
    signOut: vi.fn(),
  };
  return { auth, set: store.set };
}

// The package's public surface (its runtime exports and the members of an Auth) doing nothing: the
// baseline the consumer's entry is measured against (scripts/check-package.js).
import { getContext, setContext } from 'svelte';

const KEY = Symbol('auth');
export const setAuth = (/** @type {unknown} */ auth) => setContext(KEY, auth);
export const getAuth = () => getContext(KEY);
export const authContext = (/** @type {unknown} */ auth) => new Map([[KEY, auth]]);
export const stepUpFor = () => undefined;
export class AuthError extends Error {
  /** @param {string} code */
  constructor(code) {
    super(code);
    this.code = code;
  }
}

/** @template T @param {T} current */
const store = (current) => ({ current, subscribe: (/** @type {(value: T) => void} */ run) => (run(current), () => {}) });

export function createAuth() {
  const session = store({ status: 'signed-out', user: null, expiresAt: null, error: null, offline: false, endsAt: null });
  return {
    session,
    idle: store({ warning: false, remainingMs: 0 }),
    start: async () => ({}),
    settled: async () => session.current,
    signIn: async () => {},
    signOut() {},
    stayActive() {},
    fetch: globalThis.fetch,
    resource: () => Object.assign(store({ status: 'idle', data: null, error: null }), { reload() {}, mutate() {} }),
    on: () => () => {},
    destroy() {},
  };
}

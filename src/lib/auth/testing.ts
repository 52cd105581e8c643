// The test kit: an Auth with no network and no identity service, for component tests of views that use
// auth. Never imported by the app, so never in the production bundle.
import type { Auth } from './auth';
import { AuthError } from './errors';
import { allowedUrl } from './fetch';
import type { UserProfile } from './protocol';
import { createResource } from './resource.svelte';
import { createSession } from './session';

export interface TestAuthOptions {
  /** The signed-in user (`sub` defaults to `test-user`), or null for signed out. */
  user?: Partial<UserProfile> | null;
  /** Origins that may receive the test token, as with createAuth. */
  apiOrigins?: string[];
  /** Answers every request auth.fetch lets through, with `Authorization: Bearer <TEST_TOKEN>` set. */
  handler?: (request: Request) => Response | Promise<Response>;
}

export const TEST_TOKEN = 'test-access-token';
const HOUR_MS = 60 * 60 * 1000;

/** An Auth whose session is `user`, whose fetch hands requests to `handler`, and whose sign-in/out act at once. */
export function createTestAuth({
  user = {},
  apiOrigins = [],
  handler = () => new Response(null, { status: 404 }),
}: TestAuthOptions = {}): Auth {
  const state = createSession();
  const profile: UserProfile = { sub: 'test-user', ...user };
  const allowed = new Set(apiOrigins.map((origin) => new URL(origin).origin));
  const signIn = async () => state.signedIn(profile, Date.now() + HOUR_MS);
  const signOut = () => state.signedOut();
  if (user) void signIn();
  else signOut();

  const testFetch: typeof fetch = async (input, init) => {
    const url = allowedUrl(input, location.href, allowed);
    const request = new Request(input instanceof Request ? input : url, init);
    if (state.session.current.status !== 'signed-in') throw new AuthError('unauthenticated');
    request.headers.set('authorization', `Bearer ${TEST_TOKEN}`);
    if (request.signal.aborted) throw new AuthError('aborted');
    return handler(request);
  };

  return {
    session: state.session,
    start: async () => {},
    signIn,
    signOut,
    fetch: testFetch,
    resource: (url, options) => createResource(state.session, testFetch, url, options),
    destroy() {},
  };
}

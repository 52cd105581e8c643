// The orders page's data, loaded with auth.fetch. During hydration (a deep link, a tab that adopts
// another tab's session) start() is still at work when this runs: the load waits for the session to
// settle instead of taking "nobody yet" for "signed out".
import { AuthError } from '@pkce-spa/auth';
import type { PageLoad } from './$types';

/** What the demo API's /api/greeting answers. */
export interface Greeting {
  greeting: string;
  servedAt: string;
}

export const load: PageLoad = async ({ parent, depends }) => {
  // Runs again when someone signs in or out: the root layout invalidates 'auth:session'.
  depends('auth:session');
  const { auth, apiUrl } = await parent();
  const session = await auth.settled();
  // Prerendering lands here too: the session is `loading` on a server, and nothing is fetched.
  if (session.status !== 'signed-in' || !apiUrl) return { greeting: null, failed: null };
  try {
    const response = await auth.fetch(apiUrl);
    if (!response.ok) return { greeting: null, failed: `http_error ${response.status}` };
    return { greeting: (await response.json()) as Greeting, failed: null };
  } catch (err) {
    // The session ended meanwhile, or the API asks for more: the page says so and stays usable.
    if (err instanceof AuthError) return { greeting: null, failed: err.code };
    throw err;
  }
};

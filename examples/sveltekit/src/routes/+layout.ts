import { appAuth } from '$lib/auth';
import { error } from '@sveltejs/kit';
import type { LayoutLoad } from './$types';

// Every page is rendered to HTML at build time; the browser then hydrates it and the auth starts there.
export const prerender = true;

// The instance, to this layout (setAuth) and to every page's load (`await parent()`).
export const load: LayoutLoad = async ({ fetch }) => {
  try {
    return await appAuth(fetch);
  } catch (err) {
    // An expected error, so SvelteKit shows its message instead of a bare "Internal Error".
    error(503, err instanceof Error ? err.message : String(err));
  }
};

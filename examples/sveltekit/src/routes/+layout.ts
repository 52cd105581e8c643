import { browser } from '$app/environment';
import { PRERENDER_OPTIONS, loadAuthOptions } from '$lib/config';
import { error } from '@sveltejs/kit';
import type { LayoutLoad } from './$types';

// Every page is rendered to HTML at build time; the browser then hydrates it and the auth starts there.
export const prerender = true;

export const load: LayoutLoad = async ({ fetch }) => {
  // Prerendering must not bake a config into the pages: the deployment's config.json decides, in the browser.
  if (!browser) return { authOptions: PRERENDER_OPTIONS };
  try {
    return { authOptions: await loadAuthOptions(fetch, location.origin) };
  } catch (err) {
    // An expected error, so SvelteKit shows its message instead of a bare "Internal Error".
    error(503, err instanceof Error ? err.message : String(err));
  }
};

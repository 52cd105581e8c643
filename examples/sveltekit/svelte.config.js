// Every page is prerendered (in Node, at build time) and 200.html is the SPA fallback a static host
// serves for any other path, so a deep link still starts the app.
import adapter from '@sveltejs/adapter-static';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    adapter: adapter({ fallback: '200.html' }),
  },
};

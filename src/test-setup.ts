// Test-only fixes for gaps between happy-dom and a browser, run before every unit test file
// (vite.config.ts `setupFiles`).

// happy-dom's URL subclasses Node's and inherits its static URL.parse, which returns Node URL
// instances: `URL.parse(x) instanceof URL` is false, and oauth4webapi (which resolves endpoints with
// URL.parse and then checks `instanceof URL`) refuses its own userinfo URL. In a browser both are the same.
const PageURL = globalThis.URL;
if (typeof PageURL.parse === 'function' && !(PageURL.parse('http://localhost/') instanceof PageURL)) {
  PageURL.parse = (url: string | URL, base?: string | URL) => {
    try {
      return new PageURL(url, base);
    } catch {
      return null;
    }
  };
}

// happy-dom's Request drops `cache`, `priority`, `integrity` and `keepalive`, which a browser keeps
// (and copies with the request and its clones): auth.fetch passes them through and the sign-out's
// revocation relies on keepalive, so tests must see what a browser would send.
const PageRequest = globalThis.Request;
const MEMBERS = { cache: 'default', priority: 'auto', integrity: '', keepalive: false } as const;
const keep = (target: Request, init: RequestInit, from?: Request) => {
  for (const [name, fallback] of Object.entries(MEMBERS)) {
    const value = init[name as keyof RequestInit] ?? from?.[name as keyof Request] ?? fallback;
    Object.defineProperty(target, name, { value, configurable: true });
  }
};
if (!('keepalive' in new PageRequest('http://localhost/'))) {
  globalThis.Request = class extends PageRequest {
    constructor(input: RequestInfo | URL, init: RequestInit = {}) {
      super(input, init);
      keep(this, init, input instanceof PageRequest ? input : undefined);
    }
    clone(): Request {
      const copy = super.clone();
      keep(copy, {}, this);
      return copy;
    }
  } as typeof Request;
}

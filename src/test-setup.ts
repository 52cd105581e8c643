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

// happy-dom's Request drops `keepalive`, which a browser keeps (and copies with the request): the
// revocation sent during sign-out relies on it, so tests must be able to see it.
const PageRequest = globalThis.Request;
if (!('keepalive' in new PageRequest('http://localhost/'))) {
  globalThis.Request = class extends PageRequest {
    readonly keepalive: boolean;
    constructor(input: RequestInfo | URL, init: RequestInit = {}) {
      super(input, init);
      this.keepalive = init.keepalive ?? (input instanceof PageRequest && (input as Request).keepalive === true);
    }
  } as typeof Request;
}

// The one fetch every request of the auth module goes through, protocol and API alike.
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';

/** Where requests go: the real `fetch` in a browser, the test kit's handler in tests. */
export type Network = (request: Request) => Promise<Response>;

/** Loopback hosts may use plain http: localhost, *.localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|.+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(hostname);
}

export interface RequestLimits {
  timeoutMs: number;
  /**
   * Answers larger than this are refused, so a hostile server cannot exhaust memory. With a cap the answer
   * is read whole before it is handed on; without one it streams.
   */
  maxBytes?: number;
  /** Aborts the request, e.g. when the person signs out. */
  signal?: AbortSignal;
  /** The request outlives the page, e.g. a revocation sent as the page navigates away. */
  keepalive?: boolean;
}

/** oauth4webapi's own request: URL, method, headers (with the token or proof), body and signal. */
type OAuthInit = Omit<RequestInit, 'body'> & { body?: unknown };

/**
 * The answer says how long it is, within the cap, and is not compressed: the browser holds the body to
 * that length, so it is read natively rather than counted here (the common case for token and userinfo answers).
 */
function withinDeclared(response: Response, maxBytes: number): boolean {
  const declared = response.headers.get('content-length');
  const encoding = response.headers.get('content-encoding');
  return declared !== null && /^\d+$/.test(declared) && Number(declared) <= maxBytes && (!encoding || encoding === 'identity');
}

async function readCapped(response: Response, maxBytes: number, host: string): Promise<Blob> {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  const tooLarge = () => size > maxBytes || Number(response.headers.get('content-length')) > maxBytes;
  const reader = response.body!.getReader();
  for (let read; !tooLarge() && !(read = await reader.read()).done;) {
    size += read.value.byteLength;
    chunks.push(read.value);
  }
  if (tooLarge()) {
    await reader.cancel();
    throw new AuthError('invalid_response', { host });
  }
  return new Blob(chunks);
}

/**
 * A custom fetch for oauth4webapi: a timeout over the whole exchange (body included), no redirect
 * followed (it could carry the token to another host), failures as AuthErrors naming the host.
 * `request` builds what is sent from oauth4webapi's request and the combined signal. A capped answer
 * is read here, inside that timeout: a body cut off or late is `unreachable` or `timeout`, where read
 * later by oauth4webapi it would fail to parse, which a renewal takes as the server's fault and ends on.
 */
export function boundedFetch(
  network: Network,
  { timeoutMs, maxBytes, signal }: RequestLimits,
  request: (url: string, init: OAuthInit, signal: AbortSignal) => Request,
) {
  return async (url: string, init: OAuthInit = {}): Promise<Response> => {
    const host = new URL(url).host;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [timeout, signal, init.signal].filter((s) => !!s);
    try {
      const response = await network(request(url, init, AbortSignal.any(signals)));
      if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
        await response.body?.cancel();
        throw new AuthError('invalid_response', { host, status: response.status });
      }
      // fetch gives null-body statuses (204, 205, 304) no body, and a new Response may not have one either.
      if (maxBytes === undefined || !response.body) return response;
      const body = withinDeclared(response, maxBytes) ? await response.blob() : await readCapped(response, maxBytes, host);
      const capped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
      return Object.defineProperty(capped, 'url', { value: response.url || url });
    } catch (err) {
      if (err instanceof AuthError) throw err;
      const code = timeout.aborted ? 'timeout' : signal?.aborted || init.signal?.aborted ? 'aborted' : 'unreachable';
      throw new AuthError(code, { host }, err);
    }
  };
}

export const insecure = (url: string | URL) => {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && isLoopbackHost(hostname);
};

/**
 * oauth4webapi request options for a protocol request to `url`: no cookies, referrer or cache, and
 * plain http for loopback hosts only.
 */
export function requestOptions(network: Network, url: string | URL, limits: RequestLimits) {
  const { keepalive } = limits;
  return {
    [oauth.customFetch]: boundedFetch(
      network,
      limits,
      (href, init, signal) =>
        new Request(href, {
          ...init,
          body: init.body as BodyInit | null | undefined,
          keepalive,
          signal,
          redirect: 'manual',
          credentials: 'omit',
          referrerPolicy: 'no-referrer',
          cache: 'no-store',
        }),
    ),
    [oauth.allowInsecureRequests]: insecure(url),
  };
}

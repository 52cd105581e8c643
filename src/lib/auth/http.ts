// The one fetch every request of the auth module goes through, protocol and API alike.
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';

/** Loopback hosts may use plain http: localhost, *.localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|.+\.localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(hostname);
}

export interface BoundedFetchOptions {
  timeoutMs: number;
  /** Answers larger than this are refused, so a hostile server cannot exhaust memory. */
  maxBytes: number;
  /** Aborts the request, e.g. when the person signs out. */
  signal?: AbortSignal;
  /** The request outlives the page, e.g. a revocation sent as the page navigates away. */
  keepalive?: boolean;
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
 * fetch with a timeout over the whole exchange, a cap on the body, no cookies, no referrer, no cache,
 * and no redirects followed (a redirect could carry the request, and its token, to another host).
 * Network failures become AuthErrors naming the host; the result is a fully read Response.
 */
export function boundedFetch({ timeoutMs, maxBytes, signal, keepalive }: BoundedFetchOptions) {
  // `body` is loosely typed because oauth4webapi's custom fetch passes any BodyInit-like value.
  return async (url: string, init: Omit<RequestInit, 'body'> & { body?: unknown } = {}): Promise<Response> => {
    const host = new URL(url).host;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [timeout, signal, init.signal].filter((s) => !!s);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        keepalive,
        body: init.body as BodyInit | null | undefined,
        signal: AbortSignal.any(signals),
        redirect: 'manual',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
        cache: 'no-store',
      });
      if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
        await response.body?.cancel();
        throw new AuthError('invalid_response', { host, status: response.status });
      }
      // fetch gives null-body statuses (204, 205, 304) no body, and a new Response may not have one either.
      const body = response.body && (await readCapped(response, maxBytes, host));
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (err) {
      if (err instanceof AuthError) throw err;
      const code = timeout.aborted ? 'timeout' : signal?.aborted || init.signal?.aborted ? 'aborted' : 'unreachable';
      throw new AuthError(code, { host }, err);
    }
  };
}

/** oauth4webapi request options for `url`: the bounded fetch, and plain http for loopback hosts only. */
export function requestOptions(url: string | URL, options: BoundedFetchOptions) {
  const { protocol, hostname } = new URL(url);
  return {
    [oauth.customFetch]: boundedFetch(options),
    [oauth.allowInsecureRequests]: protocol === 'http:' && isLoopbackHost(hostname),
  };
}

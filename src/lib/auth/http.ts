import { AuthError } from './errors';

export interface BoundedFetchOptions {
  timeoutMs: number;
  /** Answers larger than this are refused, so a hostile server cannot exhaust memory. */
  maxBytes: number;
  /** Aborts the request, e.g. when the person signs out. */
  signal?: AbortSignal;
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

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
export function boundedFetch({ timeoutMs, maxBytes, signal }: BoundedFetchOptions) {
  // `body` is loosely typed because oauth4webapi's custom fetch passes any BodyInit-like value.
  return async (url: string, init: Omit<RequestInit, 'body'> & { body?: unknown } = {}): Promise<Response> => {
    const host = new URL(url).host;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [timeout, signal, init.signal].filter((s): s is AbortSignal => !!s);
    const fail = (err: unknown): never => {
      if (err instanceof AuthError) throw err;
      if (timeout.aborted) throw new AuthError('timeout', { host });
      if (signal?.aborted || init.signal?.aborted) throw new AuthError('aborted', { host });
      throw new AuthError('unreachable', { host });
    };
    try {
      const response = await fetch(url, {
        ...init,
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
      const body = NULL_BODY.has(response.status) || !response.body ? null : await readCapped(response, maxBytes, host);
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } catch (err) {
      return fail(err);
    }
  };
}

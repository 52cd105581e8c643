// An API that refuses every token: each request is answered 401 with `WWW-Authenticate: Bearer
// error="invalid_token"` (RFC 6750 §3.1), as a resource server does whose key rotated or that revoked
// the session behind the token. CORS lets the app's origin send the Authorization header and read the
// challenge. It records what reached it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveOnLoopback } from './static-server';

export interface RefusedRequest {
  method: string;
  path: string;
  /** The Authorization header, '' when there was none. */
  authorization: string;
  /** Date.now() when it arrived. */
  time: number;
}

export interface RefusingApi {
  /** 'http://localhost:PORT', for config `apiOrigins`. */
  origin: string;
  /** 'http://localhost:PORT/', for config `apiUrl` (any path is refused alike). */
  url: string;
  /** Every request, preflights included, in order of arrival. */
  requests: RefusedRequest[];
  close(): Promise<void>;
}

/** Starts the API on an ephemeral loopback port; `appOrigin` is the one origin CORS lets read its answers. */
export async function startRefusingApi(appOrigin: string): Promise<RefusingApi> {
  const requests: RefusedRequest[] = [];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ method: req.method ?? '', path: pathname, authorization: req.headers.authorization ?? '', time: Date.now() });
    const cors: Record<string, string> =
      req.headers.origin === appOrigin ? { 'Access-Control-Allow-Origin': appOrigin, Vary: 'Origin' } : { Vary: 'Origin' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...cors,
        'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
        'Access-Control-Allow-Headers': 'Authorization, DPoP, Content-Type',
        'Access-Control-Max-Age': '600',
      });
      return void res.end();
    }
    const body = JSON.stringify({ error: 'invalid_token' });
    res.writeHead(401, {
      ...cors,
      'Access-Control-Expose-Headers': 'WWW-Authenticate',
      'WWW-Authenticate': 'Bearer error="invalid_token"',
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      'Cache-Control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
  const server = await serveOnLoopback(handle);
  return { origin: new URL(server.url).origin, url: server.url, requests, close: server.close };
}

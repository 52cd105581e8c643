// A deliberately hostile authorization server in plain node:http. It plays the account origin
// (authorize, token) on http://localhost:P1, the auth origin (userinfo) on http://127.0.0.1:P2, and
// runs a recording "canary" on http://127.0.0.1:P3 that stands for an attacker: any request there is
// a failure. Each case installs one Behaviour; everything else (logging, grants, the checks on the
// app's own requests) is shared so a case only states what it does differently.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { randomValue, signJwt } from './jwt';
import { requestRules } from './rules';

export type Origin = 'account' | 'auth' | 'canary';
export type Endpoint = 'authorize' | 'token' | 'userinfo' | 'preflight' | 'canary' | 'other';

export interface LoggedRequest {
  seq: number;
  origin: Origin;
  endpoint: Endpoint;
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What the server remembers about one authorization request and the code it issued for it. */
export interface Grant {
  code: string;
  state: string | null;
  nonce: string | null;
  challenge: string | null;
  redirectUri: string | null;
  scope: string;
  sub: string;
}

/** An HTTP answer. `json` is serialised; `hang` never answers; `endless` streams a body forever. */
export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string | Buffer;
  hang?: boolean;
  endless?: boolean;
}

/** The redirect back to the app: params (duplicates allowed, order kept) and fragment, or a raw Location. */
export interface AuthorizeAnswer {
  params?: [string, string][];
  fragment?: string;
  location?: string;
}

export interface AuthorizeCtx {
  query: URLSearchParams;
  /** 1 for the first authorization request of the case. */
  n: number;
  grant: Grant;
  /** code, state (echoed) and iss: what an honest server sends. */
  good: [string, string][];
  issuer: string;
  /** Earlier answers of this case, oldest first. */
  previous: { params: [string, string][]; location: string }[];
}

export interface TokenCtx {
  form: URLSearchParams;
  n: number;
  grant?: Grant;
  /** An honest token response (registers its access token); throws without a valid grant. */
  good(): Record<string, unknown>;
  /** The claims an honest ID token would carry. */
  idClaims(): Record<string, unknown>;
  idToken(claims: Record<string, unknown>, header?: Record<string, unknown>): string;
}

export interface UserinfoCtx {
  token: string | null;
  n: number;
  grant?: Grant;
  claims(): Record<string, unknown>;
  jwt(claims: Record<string, unknown>): string;
}

type Awaitable<T> = T | Promise<T>;

export interface Behaviour {
  authorize?(ctx: AuthorizeCtx): Awaitable<AuthorizeAnswer>;
  token?(ctx: TokenCtx): Awaitable<Answer>;
  userinfo?(ctx: UserinfoCtx): Awaitable<Answer>;
  /** Endpoints answered without any CORS headers (preflight included). */
  noCors?: ('token' | 'userinfo')[];
}

export const USER = { sub: 'hostile-user-1', email: 'ada@example.test', name: 'Ada Hostile', preferred_username: 'ada' };

/** Every value the app must keep to itself, gathered from what this case issued or saw. */
export interface Secrets {
  codes: string[];
  accessTokens: string[];
  idTokens: string[];
  states: string[];
  nonces: string[];
  verifiers: string[];
}

export interface HostileServer {
  accountUrl: string;
  authUrl: string;
  canaryUrl: string;
  issuer: string;
  clientId: string;
  /** The app's origin (for CORS) and the redirect_uri it must send. */
  configure(app: { origin: string; redirectUri: string }): void;
  /** Install a case's behaviour and forget the previous case's log, grants and findings. */
  setCase(behaviour: Behaviour): void;
  log: LoggedRequest[];
  /** Authorization responses sent back to the app in this case. */
  callbacks: { params: [string, string][]; location: string }[];
  /** Rule breaks found in the app's own requests (PKCE, state, redirect_uri, client auth, reuse). */
  violations: string[];
  secrets(): Secrets;
  /** How many times each code was presented at the token endpoint. */
  exchanges: Map<string, number>;
  /** Resolve with the first logged request (past or future) matching pred. */
  waitFor(pred: (r: LoggedRequest) => boolean, timeoutMs?: number): Promise<LoggedRequest>;
  close(): Promise<void>;
}

const MAX_LOGGED_BODY = 64 * 1024;

export async function startHostileServer(options: { clientId: string }): Promise<HostileServer> {
  const { clientId } = options;
  const events = new EventEmitter();
  const openResponses = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const rules = requestRules(clientId);

  let app = { origin: '', redirectUri: '' };
  let behaviour: Behaviour = {};
  let seq = 0;
  const counts = { authorize: 0, token: 0, userinfo: 0 };
  const grants = new Map<string, Grant>();
  const accessTokens = new Map<string, Grant>();
  const idTokens: string[] = [];
  const verifiers: string[] = [];

  const listen = async (handler: (req: IncomingMessage, res: ServerResponse, body: string) => Promise<void>, origin: Origin) => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_LOGGED_BODY) chunks.push(c);
      });
      req.on('end', () => {
        handler(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
          hostile.violations.push(`hostile server error on ${origin} ${req.url}: ${String(err)}`);
          if (!res.headersSent) res.writeHead(500).end();
        });
      });
    });
    // A browser that gives up on a hung or endless answer resets the socket; that is expected here.
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return { server, port: (server.address() as AddressInfo).port };
  };

  function record(origin: Origin, endpoint: Endpoint, req: IncomingMessage, body: string): LoggedRequest {
    const url = new URL(req.url ?? '/', 'http://x');
    const entry: LoggedRequest = {
      seq: ++seq,
      origin,
      endpoint,
      method: req.method ?? '',
      path: url.pathname,
      query: [...url.searchParams],
      headers: { ...req.headers },
      body,
    };
    hostile.log.push(entry);
    events.emit('request', entry);
    return entry;
  }

  function corsHeaders(enabled: boolean): Record<string, string> {
    if (!enabled) return {};
    return {
      'Access-Control-Allow-Origin': app.origin,
      Vary: 'Origin',
      'Access-Control-Expose-Headers': 'WWW-Authenticate, DPoP-Nonce',
    };
  }

  function send(res: ServerResponse, answer: Answer, cors: boolean): void {
    const headers: Record<string, string> = { 'Cache-Control': 'no-store', ...corsHeaders(cors), ...answer.headers };
    if (answer.hang) {
      // Never answer; the socket is destroyed when the case ends or the browser gives up.
      openResponses.add(res);
      res.on('close', () => openResponses.delete(res));
      return;
    }
    if (answer.endless) {
      res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json', ...headers });
      res.write('{"padding":"');
      openResponses.add(res);
      const chunk = 'x'.repeat(16 * 1024);
      let written = 0;
      // Bounded only so a broken client cannot exhaust the test machine (64 MB), then it just stays open.
      const timer = setInterval(() => {
        if (written >= 64 * 2 ** 20 || !res.writable) return;
        res.write(chunk);
        written += chunk.length;
      }, 1);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
        openResponses.delete(res);
      });
      return;
    }
    let body: string | Buffer = answer.body ?? '';
    if (answer.json !== undefined) {
      body = JSON.stringify(answer.json);
      headers['Content-Type'] ??= 'application/json';
    }
    res.writeHead(answer.status ?? 200, { 'Content-Length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
  }

  const idClaims = (grant: Grant): Record<string, unknown> => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: hostile.issuer,
      sub: grant.sub,
      aud: clientId,
      exp: now + 300,
      iat: now,
      ...(grant.nonce ? { nonce: grant.nonce } : {}),
    };
  };
  const idToken = (claims: Record<string, unknown>, header?: Record<string, unknown>) => {
    const jwt = signJwt(claims, header);
    idTokens.push(jwt);
    return jwt;
  };

  const account = await listen(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'OPTIONS') {
      record('account', 'preflight', req, body);
      const cors = !(behaviour.noCors ?? []).includes('token');
      return send(res, { status: 204, headers: cors ? preflightHeaders(req) : {} }, cors);
    }
    if (url.pathname === '/connect/authorize') {
      record('account', 'authorize', req, body);
      const q = url.searchParams;
      hostile.violations.push(...rules.authorize(q, app.redirectUri));
      const grant: Grant = {
        code: randomValue('code'),
        state: q.get('state'),
        nonce: q.get('nonce'),
        challenge: q.get('code_challenge'),
        redirectUri: q.get('redirect_uri'),
        scope: q.get('scope') ?? '',
        sub: USER.sub,
      };
      grants.set(grant.code, grant);
      const good: [string, string][] = [
        ['code', grant.code],
        ['state', grant.state ?? ''],
        ['iss', hostile.issuer],
      ];
      const n = ++counts.authorize;
      const answer =
        (await behaviour.authorize?.({ query: q, n, grant, good, issuer: hostile.issuer, previous: [...hostile.callbacks] })) ??
        {};
      const params = answer.params ?? good;
      let location = answer.location;
      if (!location) {
        const target = new URL(app.redirectUri);
        for (const [k, val] of params) target.searchParams.append(k, val);
        if (answer.fragment !== undefined) target.hash = answer.fragment;
        location = target.href;
      }
      hostile.callbacks.push({ params, location });
      res.writeHead(302, { Location: location, 'Cache-Control': 'no-store' }).end();
      return;
    }
    if (url.pathname === '/connect/token' && req.method === 'POST') {
      record('account', 'token', req, body);
      const form = new URLSearchParams(body);
      const grant = grants.get(form.get('code') ?? '');
      hostile.violations.push(
        ...rules.token({ contentType: req.headers['content-type'], authorization: req.headers.authorization, form }, grant),
      );
      const code = form.get('code') ?? '';
      verifiers.push(form.get('code_verifier') ?? '');
      hostile.exchanges.set(code, (hostile.exchanges.get(code) ?? 0) + 1);
      if (hostile.exchanges.get(code)! > 1) hostile.violations.push(`token: code exchanged ${hostile.exchanges.get(code)} times`);
      const ctx: TokenCtx = {
        form,
        n: ++counts.token,
        grant,
        good() {
          if (!grant) throw new Error('no grant');
          const accessToken = randomValue('at');
          accessTokens.set(accessToken, grant);
          return {
            access_token: accessToken,
            token_type: 'Bearer',
            expires_in: 300,
            scope: grant.scope,
            id_token: idToken(idClaims(grant)),
          };
        },
        idClaims: () => (grant ? idClaims(grant) : {}),
        idToken,
      };
      const cors = !(behaviour.noCors ?? []).includes('token');
      let answer: Answer;
      try {
        answer = behaviour.token ? await behaviour.token(ctx) : { json: ctx.good() };
      } catch {
        answer = { status: 400, json: { error: 'invalid_grant' } };
      }
      return send(res, answer, cors);
    }
    record('account', 'other', req, body);
    send(res, { status: 404, body: 'not found' }, false);
  }, 'account');

  const auth = await listen(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const cors = !(behaviour.noCors ?? []).includes('userinfo');
    if (req.method === 'OPTIONS') {
      record('auth', 'preflight', req, body);
      return send(res, { status: 204, headers: cors ? preflightHeaders(req) : {} }, cors);
    }
    if (url.pathname !== '/connect/userinfo') {
      record('auth', 'other', req, body);
      return send(res, { status: 404, body: 'not found' }, cors);
    }
    record('auth', 'userinfo', req, body);
    const header = String(req.headers.authorization ?? '');
    const token = /^Bearer /i.test(header) ? header.slice(7) : null;
    const grant = token ? accessTokens.get(token) : undefined;
    if (!grant) hostile.violations.push(`userinfo: called with a token this server did not issue ("${header.slice(0, 60)}")`);
    const ctx: UserinfoCtx = {
      token,
      n: ++counts.userinfo,
      grant,
      claims: () => ({ ...USER }),
      jwt: (claims) => signJwt(claims),
    };
    const answer = behaviour.userinfo ? await behaviour.userinfo(ctx) : { json: ctx.claims() };
    send(res, answer, cors);
  }, 'auth');

  const canary = await listen(async (req, res, body) => {
    const entry = record('canary', 'canary', req, body);
    hostile.violations.push(`canary (attacker) server received ${entry.method} ${req.url}`);
    // Permissive on purpose: an attacker's server would let the app read whatever it answers.
    res.writeHead(200, {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Headers': '*',
      'Content-Type': 'application/json',
    });
    res.end('{}');
  }, 'canary');

  function preflightHeaders(req: IncomingMessage): Record<string, string> {
    return {
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? ''),
      // No caching: the next case may take CORS away.
      'Access-Control-Max-Age': '0',
    };
  }

  const servers: Server[] = [account.server, auth.server, canary.server];

  const hostile: HostileServer = {
    accountUrl: `http://localhost:${account.port}`,
    authUrl: `http://127.0.0.1:${auth.port}`,
    canaryUrl: `http://127.0.0.1:${canary.port}`,
    issuer: `http://localhost:${account.port}`,
    clientId,
    log: [],
    callbacks: [],
    violations: [],
    exchanges: new Map(),
    configure(next) {
      app = next;
    },
    setCase(next) {
      behaviour = next;
      for (const res of openResponses) res.destroy();
      hostile.log = [];
      hostile.callbacks = [];
      hostile.violations = [];
      hostile.exchanges = new Map();
      counts.authorize = counts.token = counts.userinfo = 0;
      grants.clear();
      accessTokens.clear();
      idTokens.length = 0;
      verifiers.length = 0;
    },
    secrets() {
      const grantList = [...grants.values()];
      return {
        codes: grantList.map((g) => g.code),
        accessTokens: [...accessTokens.keys()],
        idTokens: [...idTokens],
        states: grantList.map((g) => g.state ?? '').filter(Boolean),
        nonces: grantList.map((g) => g.nonce ?? '').filter(Boolean),
        verifiers: verifiers.filter(Boolean),
      };
    },
    waitFor(pred, timeoutMs = 15_000) {
      const found = hostile.log.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const onRequest = (entry: LoggedRequest) => {
          if (!pred(entry)) return;
          clearTimeout(timer);
          events.off('request', onRequest);
          resolve(entry);
        };
        const timer = setTimeout(() => {
          events.off('request', onRequest);
          reject(new Error(`hostile server: expected request not seen within ${timeoutMs} ms`));
        }, timeoutMs);
        events.on('request', onRequest);
      });
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const res of openResponses) res.destroy();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
  return hostile;
}

/** A promise with its resolver, for cases that hold an answer until the test says so. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

// The session engine: the one owner of an app's session in the browser. It holds the person, the
// refresh token and every token (tokens.ts), the DPoP key pair, the provider's metadata and the idle
// deadline; it makes every request to the identity service; and it answers its pages' commands
// (commands.ts) over MessagePorts (pages.ts), telling every page each change of the session. It runs in
// one shared worker for all the app's pages (host/worker.ts), or in a page for that page alone where no
// shared worker can start (host/in-page.ts): the same code in both. A refresh token never leaves it.
import { discovers, serverOf, type AuthOptions } from '../options';
import { discoverServer } from '../protocol/discovery';
import type { Network } from '../protocol/http';
import { revokeAll } from '../protocol/signout';
import { refreshTokens, type Claims, type Server } from '../protocol/steps';
import { AuthError } from '../protocol/errors';
import { commandHandlers, type SessionCore } from './commands';
import { createFrames } from './frames';
import { createIdleDeadline } from './idle';
import { createPages, toWire, type Handler, type PagePort } from './pages';
import { createVault, type Held } from './tokens';

export type { PagePort } from './pages';

/** What the engine tells the app's other hosts, token-free (host/signal.ts): a session began or ended, the person is here. */
export interface Signal {
  signedIn(sub: string): void;
  signedOut(): void;
  active(): void;
}

/** What another host of the app said (host/signal.ts). */
export type Heard = { type: 'signed-out' } | { type: 'signed-in'; sub: string } | { type: 'active' };

export interface EngineParts {
  options: AuthOptions;
  network: Network;
  now(): number;
  /** The app's other hosts (host/signal.ts): every host opens one, whether or not the browser has a channel. */
  signal: Signal;
  /** A bug in a handler (a thrown non-AuthError): reported as the host reports uncaught errors. */
  report?(error: unknown): void;
}

/**
 * The provider's metadata, read into `server` once when the options lack an endpoint (OIDC Discovery
 * 1.0 §4), and kept in the engine's memory only; after a failure, the next command reads it again.
 */
function metadataOf(options: AuthOptions, server: Server, network: Network): () => Promise<void> {
  let metadata: Promise<void> | undefined;
  return () =>
    (metadata ??= discovers(options)
      ? discoverServer(server.as, { network, timeoutMs: server.timeoutMs }).catch((err: unknown) => {
          metadata = undefined;
          throw err;
        })
      : Promise.resolve());
}

/** The session engine of one app; see the file's head. */
export interface Engine {
  /** Serves one page over `port` until the returned close() (the page is gone). */
  serve(port: PagePort): () => void;
  /** How many pages it serves: the worker keeps the session while there is one (host/worker-host.ts). */
  pages(): number;
  /** Drops the session without a word to the identity service: no page has been open for `keepSessionMs`. */
  forget(): void;
  /** Another host of the app (another tab's in-page engine) said the session ended, or another person began one. */
  heard(message: Heard): void;
  /** Drops everything, timers included (the test kit, an instance destroyed). */
  destroy(): void;
}

export function createEngine<C extends Claims>({ options, network, now, signal, report = console.error }: EngineParts): Engine {
  const server = serverOf(options, network);
  const pages = createPages<C>(report);
  let user: C | undefined;
  let signedOut = new AbortController();
  const ending = () => {
    signedOut.abort();
    signedOut = new AbortController();
  };

  const frames = options.hiddenFrame === false ? undefined : createFrames<C>({ server, pages, now });

  /**
   * The session renewed in a hidden frame: only for the person it is for, and only while it lasts; the
   * tokens of another person's answer, or of one that came after the session ended, are revoked.
   */
  async function renewInFrame(held: Held, ended: AbortSignal) {
    const { tokens, user: person } = await frames!.authorize(held.scope, vault.dpop());
    if (ended.aborted || person.sub !== user?.sub) {
      revokeAll(server, tokens);
      throw new AuthError(ended.aborted ? 'aborted' : 'account_changed');
    }
    return tokens;
  }

  const vault = createVault({
    client: server.client,
    now,
    scope: server.scope,
    apis: options.apis,
    grant: async () => (current, params, abort) => refreshTokens(server, vault.dpop(), current, now(), abort, params),
    frame: frames && renewInFrame,
    ending: (endsAt, error) => {
      pages.publish({ type: 'ending', endsAt });
      pages.publish({ type: 'renew-failed', error: toWire(error) });
    },
    renewed: (tokens) => pages.publish({ type: 'renewed', expiresAt: tokens.expiresAt }),
    offline: () => pages.publish({ type: 'offline' }),
    ended: (error) => {
      user = undefined;
      idle?.stop();
      pages.publish({ type: 'expired', error: error && toWire(error) });
    },
    retrying: (error) => pages.publish({ type: 'renew-failed', error: toWire(error) }),
  });

  const idle = options.idle && createIdleDeadline({ options: options.idle, now, show: pages.show, end: () => signOut('idle') });

  const ready = metadataOf(options, server, network);

  /** A session begins: a sign-in, or another person's sign-in replacing the last one (revoked). */
  function begin(held: Held, person: C) {
    const before = vault.drop();
    if (before && user?.sub !== person.sub) revokeAll(server, before);
    vault.hold(held);
    user = person;
    idle?.begin();
    pages.publish({ type: 'signed-in', user: person, expiresAt: held.tokens.expiresAt });
    signal.signedIn(person.sub);
  }

  /** Ends the session in every page and revokes what it held, live or ended on its own (RFC 7009). */
  function signOut(reason: 'user' | 'idle' | 'other-tab', from?: PagePort) {
    ending();
    const tokens = vault.drop();
    user = undefined;
    idle?.stop();
    if (tokens) revokeAll(server, tokens);
    // The page that signed out has said so itself; the others learn it from here.
    pages.publish({ type: 'signed-out', reason: reason === 'user' ? 'other-tab' : reason }, from);
    if (reason !== 'other-tab') signal.signedOut();
    return tokens;
  }

  const core: SessionCore<C> = {
    options,
    server,
    vault,
    frames,
    idle: idle || undefined,
    pages,
    now,
    ready,
    user: () => user,
    signedOut: () => signedOut.signal,
    begin,
    signOut,
    active: () => signal.active(),
  };
  const handlers = commandHandlers(core) as unknown as Record<string, Handler>;

  return {
    serve: (port) => pages.serve(port, handlers),
    pages: pages.size,
    forget() {
      ending();
      vault.drop();
      user = undefined;
      idle?.stop();
      pages.reset();
    },
    heard(message) {
      // A session that ended on its own ends too: its page shows the sign-out, what it held is revoked.
      if (message.type === 'signed-out') {
        if (pages.snapshot().status !== 'signed-out') signOut('other-tab');
      } else if (!user) return;
      else if (message.type === 'active') idle?.active();
      else if (message.sub !== user.sub) signOut('other-tab');
    },
    destroy() {
      vault.drop();
      idle?.stop();
      pages.clear();
    },
  };
}

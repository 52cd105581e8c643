// The built app plus the local identity provider, both on ephemeral loopback ports, wired together
// through the app's runtime config.json.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, serveApp, serveApps, type AppServer, type MountedApp } from './static-server';

/** What idp/server.js startIdp() resolves to (see the team contract). */
export interface Idp {
  accountUrl: string;
  authUrl: string;
  apiUrl: string;
  issuer: string;
  clientId: string;
  users: { username: string; password: string; name: string; email: string }[];
  close(): Promise<void>;
}

export interface IdpOptions {
  accessTokenTtl?: number;
  refreshTokenTtl?: number;
  clientId?: string;
  redirectUris?: string[];
  /** Where a sign-out may return (post_logout_redirect_uri); default `redirectUris`. */
  postLogoutRedirectUris?: string[];
  /** The provider and the demo API require a DPoP nonce in every proof. */
  dpopNonce?: boolean;
  /** Seconds a login stays recent enough for the demo API's /api/sensitive (RFC 9470 max_age); default 60. */
  sensitiveMaxAge?: number;
  /** Accounts besides the demo users (a test's unusual names); never listed in the README. */
  extraUsers?: { sub: string; username: string; password: string; name: string; email: string }[];
  /**
   * The sign-out prompt is the answer to the end-session request itself, as with a stock oidc-provider,
   * instead of a page of its own that the request redirects to.
   */
  logoutPromptAtEndSession?: boolean;
  /** False: the client lacks the refresh_token grant, and no refresh token is issued (a stock oidc-provider's public client). */
  refreshTokens?: boolean;
  /** False: an authorization request sent as a frame (Sec-Fetch-Dest: iframe) gets a page that forbids framing. */
  allowFraming?: boolean;
}

export interface Stack {
  app: AppServer;
  idp: Idp;
  /** The config the app was given; `stack.app.setConfig` may replace it. */
  config: Record<string, unknown>;
  close(): Promise<void>;
}

export async function startIdp(options: IdpOptions & { redirectUris: string[] }): Promise<Idp> {
  const file = path.join(repoRoot, 'idp/server.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: the end-to-end tests need the local identity provider`);
  const mod = (await import(pathToFileURL(file).href)) as { startIdp(o: object): Promise<Idp> };
  return mod.startIdp({ accountPort: 0, authPort: 0, apiPort: 0, quiet: true, ...options });
}

export interface StackOptions extends IdpOptions {
  /**
   * Merged over the default config.json; a function gets the provider, for keys naming its URLs, e.g.
   * `(idp) => ({ apis: { [idp.apiUrl]: { resource: idp.apiUrl, scope: 'notes.read' } } })`.
   */
  extraConfig?: Record<string, unknown> | ((idp: Idp) => Record<string, unknown>);
  /** The app's CSP worker-src instead of 'self' (ServeOptions): "'none'" makes its pages run the in-page host. */
  workerSrc?: string;
}

/** The default config.json for an app signing in at `idp`, with `extraConfig` merged over it. */
export function appConfig(idp: Idp, extraConfig: StackOptions['extraConfig']): Record<string, unknown> {
  return {
    accountUrl: idp.accountUrl,
    authUrl: idp.authUrl,
    clientId: idp.clientId,
    apiOrigins: [idp.apiUrl],
    apiUrl: idp.apiUrl + '/api/greeting',
    // The demo API is a resource server (RFC 8707): its notes need a token for it, with notes.read; writing
    // one needs notes.write, which it may ask a step-up for (idp/api.js).
    apis: { [idp.apiUrl]: { resource: idp.apiUrl, scope: 'notes.read', stepUpScopes: 'notes.write' } },
    ...(typeof extraConfig === 'function' ? extraConfig(idp) : extraConfig),
  };
}

/** Start app + provider; `extraConfig` is merged over the default config.json. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const { extraConfig, workerSrc, ...idpOptions } = options;
  const app = await serveApp({ workerSrc });
  let idp: Idp;
  try {
    idp = await startIdp({ redirectUris: [app.url], ...idpOptions });
  } catch (err) {
    await app.close();
    throw err;
  }
  const config = appConfig(idp, extraConfig);
  app.setConfig(config);
  return {
    app,
    idp,
    config,
    close: async () => {
      await Promise.allSettled([app.close(), idp.close()]);
    },
  };
}

/** One app of a shared origin (startApps), with its own provider. */
export interface MountedStack {
  app: MountedApp;
  idp: Idp;
  config: Record<string, unknown>;
}

export interface AppsStack {
  /** 'http://localhost:PORT', every app's origin. */
  origin: string;
  /** By mount path, e.g. apps['/a/']. */
  apps: Record<string, MountedStack>;
  close(): Promise<void>;
}

/**
 * The built app at each mount path of one origin ('/a/', '/b/'), each with a provider of its own (its
 * redirect URI the app's URL) and a config.json pointing at it; `options` per mount as for startStack.
 */
export async function startApps(options: Record<string, StackOptions>): Promise<AppsStack> {
  const server = await serveApps(Object.keys(options));
  const idps: Idp[] = [];
  const close = async () => {
    await Promise.allSettled([server.close(), ...idps.map((idp) => idp.close())]);
  };
  const apps: Record<string, MountedStack> = {};
  try {
    for (const [mount, { extraConfig, ...idpOptions }] of Object.entries(options)) {
      const app = server.apps[mount];
      const idp = await startIdp({ redirectUris: [app.url], ...idpOptions });
      idps.push(idp);
      const config = appConfig(idp, extraConfig);
      app.setConfig(config);
      apps[mount] = { app, idp, config };
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { origin: server.origin, apps, close };
}

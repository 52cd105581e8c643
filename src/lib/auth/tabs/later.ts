// What follows the first paint, behind the module's one lazy seam (core.ts): the tabs that share the
// session and the page's events, the idle sign-out, auth.fetch, sign-out at the identity service, the
// authorization request, and the step-up's checks.
// Nothing here is on the sign-in path.
import { isApiRequest, type ApiOptions } from '../protocol/apis';
import type { SignOutReason } from '../page/events';
import { watchIdle, type IdleOptions, type IdleState } from './idle';
import { listenPage } from '../browser/lifecycle';
import type { BrowserPort } from '../browser/port';
import { refreshTokens, type Claims, type Server } from '../protocol/steps';
import type { Session } from '../svelte/session';
import type { AppNames, AppStorage } from '../browser/storage';
import { createRelay, type Relay } from './tabs';
import type { Held, Vault } from '../session/tokens';

export { beginSignIn } from '../protocol/authorize';
export { discoverServer } from '../protocol/discovery';
export { createAuthFetch } from '../page/fetch';
export { endSession, revokeAll } from '../protocol/signout';
export { completeStepUp, stepUpRequest } from '../protocol/stepup';

/** What an instance hands over for its tabs: its browser, names, server and session. */
export interface Instance<C extends Claims> {
  port(): BrowserPort;
  names: AppNames;
  storage(): AppStorage;
  server: Server;
  apis: ApiOptions[];
  dpop: boolean;
  vault: Vault;
  state: Session<C>;
  signedIn(held: Held, user: C): void;
  /** Signs this tab out, here only; `revoke` the tokens it holds unless another tab of the session revoked them. */
  signOut(everywhere: false, revoke: boolean, reason: SignOutReason): void;
  /** The idle sign-out, when configured, and where its countdown shows (`auth.idle`). */
  idle?: IdleOptions;
  showIdle(state: IdleState): void;
}

/** The tabs as the instance holds them: the relay, and a way to stay when the idle sign-out is near. */
export type Joined = Relay & { stayActive(): void };

/** The relay to the app's other tabs over the real token endpoint, and the page's events. */
export function connectTabs<C extends Claims>(instance: Instance<C>): Joined {
  const { names, server, vault, state } = instance;
  const port = instance.port();
  const channel = port.channel(names.channel);
  const relay = createRelay<C>({
    channel,
    locks: port.locks,
    names,
    vault,
    state,
    signedIn: instance.signedIn,
    endpoint: (current, params, signal) => refreshTokens(server, vault.dpop(), current, port.now(), signal, params),
    grantable: (params) => isApiRequest(instance.apis, params, vault.held()?.added),
    signedOut: () => instance.signOut(false, false, 'other-tab'),
    dpop: instance.dpop,
    timeoutMs: server.timeoutMs,
    now: port.now,
  });
  const unlisten = listenPage({
    port,
    vault,
    state,
    storage: instance.storage(),
    signOut: () => instance.signOut(false, true, 'other-tab'),
  });
  const options = instance.idle;
  const idle =
    options &&
    watchIdle({
      options,
      channel,
      app: names.app,
      port,
      state,
      member: relay.member,
      show: instance.showIdle,
      signOut: (everywhere, revoke) => instance.signOut(everywhere, revoke, 'idle'),
    });
  return {
    ...relay,
    stayActive: () => idle?.stay(),
    destroy() {
      idle?.destroy();
      unlisten();
      relay.destroy();
      channel?.close();
    },
  };
}

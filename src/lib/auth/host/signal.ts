// The token-free signal between the app's hosts, over a BroadcastChannel named for the app: a session
// began (as whom), a session ended, the person is here. Where every page shares the one worker it only
// wakes a page that has not joined the engine yet (a stranger's page, when someone signs in elsewhere);
// where each page runs its own engine (host/in-page.ts), it is how a sign-out, a new person and the
// idle deadline reach every tab. Nothing on it is secret; everything on it is checked, as any script of
// the origin can post there.
import type { AppNames } from '../browser/storage';
import type { Heard, Signal } from '../session/engine';

/** What travels: the app's key and one of the engine's signals. */
type Message = Heard & { app: string };

/** The message when it is this app's and well formed; a person's `sub` is 1 to 255 characters (OIDC Core §2). */
export function parseSignal(data: unknown, app: string): Heard | undefined {
  // Anything but an object of this app (text, a number, null) has no `app` of this app's.
  const message = data as Partial<Message> | null | undefined;
  if (message?.app !== app) return undefined;
  if (message.type === 'signed-out' || message.type === 'active') return { type: message.type };
  const { sub } = message as { sub?: unknown };
  if (message.type === 'signed-in' && typeof sub === 'string' && sub.length >= 1 && sub.length <= 255)
    return { type: 'signed-in', sub };
  return undefined;
}

/** The channel as the hosts use it; undefined where there is none. */
export type Channel = Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'removeEventListener' | 'close'>;

/** Opens the app's signal: what this host says goes to the others; what they say goes to `heard`. */
export function openSignal(channel: Channel | undefined, names: AppNames, heard: (message: Heard) => void) {
  const post = (message: Heard) => channel?.postMessage({ ...message, app: names.app });
  const listener = ({ data }: MessageEvent) => {
    const message = parseSignal(data, names.app);
    if (message) heard(message);
  };
  channel?.addEventListener('message', listener);
  const signal: Signal = {
    signedIn: (sub) => post({ type: 'signed-in', sub }),
    signedOut: () => post({ type: 'signed-out' }),
    active: () => post({ type: 'active' }),
  };
  return {
    signal,
    close() {
      channel?.removeEventListener('message', listener);
      channel?.close();
    },
  };
}

// Async data behind the access token as a store, in the shape of TanStack Query's: a state narrowed by
// `status`, loaded while someone subscribes and the session is signed in, following a function URL.
import { untrack } from 'svelte';
import type { Readable } from 'svelte/store';
import { AuthError, bounded, publicError } from '../protocol/errors';
import type { Claims } from '../protocol/steps';
import { reactiveStore, type ReactiveStore, type SessionState } from './session';

/** What to load: a URL, a function returning one (followed as it changes), or null for nothing. */
export type ResourceUrl = string | URL | null | (() => string | URL | null | undefined);

export type ResourceStatus = 'idle' | 'loading' | 'ok' | 'error' | 'unauthenticated';

export type ResourceState<T> =
  /** Nothing to load (no URL), or nobody subscribes. */
  | { status: 'idle'; data: null; error: null }
  /** `data` is the previous data during a reload, null for a new URL or user. */
  | { status: 'loading'; data: T | null; error: null }
  | { status: 'ok'; data: T; error: null }
  | { status: 'error'; data: null; error: AuthError }
  | { status: 'unauthenticated'; data: null; error: null };

export interface Resource<T> extends ReactiveStore<ResourceState<T>> {
  /** Loads again, aborting a load in progress. */
  reload(): void;
  /** Sets the data without a request, e.g. after a write; a function gets the data it replaces. */
  mutate(data: T | ((old: T | null) => T)): void;
}

export interface ResourceOptions<T> {
  init?: Omit<RequestInit, 'signal'>;
  /** Turns a successful response into data (the default parses JSON); what it throws becomes the `error` state. */
  read?: (response: Response) => Promise<T>;
}

/** How much of an error response's text an `http_error` carries. */
const MAX_ERROR_TEXT = 200;
/** The start of an error answer's text: the body streams, so only what the message can show is read. */
async function errorText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (let read; reader && text.length < MAX_ERROR_TEXT && !(read = await reader.read()).done;) {
    text += decoder.decode(read.value, { stream: true });
  }
  await reader?.cancel();
  return bounded(text, MAX_ERROR_TEXT);
}

/**
 * Whatever failed, the resource shows an AuthError: auth.fetch rejects with one already, an abort is
 * `aborted`, and a throwing `read` or any other error is an invalid response.
 */
function asAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof DOMException && err.name === 'AbortError') return new AuthError('aborted', {}, err);
  return new AuthError('invalid_response', {}, err);
}

const IDLE = { status: 'idle', data: null, error: null } as const;
const UNAUTHENTICATED = { status: 'unauthenticated', data: null, error: null } as const;

export function createResource<T>(
  session: Readable<SessionState<Claims>>,
  authFetch: typeof fetch,
  url: ResourceUrl,
  { init, read = (response) => response.json() }: ResourceOptions<T> = {},
): Resource<T> {
  let controller: AbortController | undefined;
  let target: string | undefined;
  let loadedFor: string | undefined;
  let signedIn = false;
  let started = false;
  const resolve = () => (typeof url === 'function' ? url() : url) ?? undefined;

  // A function URL is followed in an effect, so a view's $state read inside it is tracked. The effect
  // is made with the resource (in a view's script it ends with the view), not when the store starts:
  // that runs inside whichever effect subscribes first, often a template block, and a re-run of that
  // block would destroy it, leaving the resource deaf to new URLs.
  if (typeof url === 'function') {
    $effect.root(() => {
      $effect(() => {
        const next = resolve()?.toString();
        untrack(() => started && next !== target && ((target = next), load(true)));
      });
    });
  }

  const { set, update, readable } = reactiveStore<ResourceState<T>>(IDLE, () => {
    started = true;
    target = resolve()?.toString();
    const stopSession = session.subscribe(({ status, user }) => {
      signedIn = status === 'signed-in';
      if (signedIn && user?.sub !== loadedFor) {
        loadedFor = user?.sub;
        load(true);
      } else if (status === 'signed-out' || status === 'expired' || status === 'error') {
        abort();
        loadedFor = undefined;
        set(UNAUTHENTICATED);
      }
    });
    return () => {
      started = false;
      stopSession();
      abort();
      loadedFor = undefined;
      set(IDLE);
    };
  });

  function abort() {
    controller?.abort();
    controller = undefined;
  }

  async function load(fresh: boolean) {
    abort();
    if (!signedIn) return;
    if (!target) return set(IDLE);
    const mine = (controller = new AbortController());
    update((s) => ({ status: 'loading', data: fresh || s.status === 'error' ? null : s.data, error: null }) as ResourceState<T>);
    try {
      const response = await authFetch(target, { ...init, signal: mine.signal });
      if (!response.ok) {
        throw new AuthError('http_error', { status: response.status, text: await errorText(response) });
      }
      const data = await read(response);
      if (mine === controller) set({ status: 'ok', data, error: null });
    } catch (e) {
      // A late answer for an aborted load (sign-out, user switch, new URL, reload) must not reach the screen.
      if (mine !== controller || mine.signal.aborted) return;
      const error = asAuthError(e);
      const unauthenticated = error.code === 'session_expired' || error.code === 'unauthenticated';
      set(unauthenticated ? UNAUTHENTICATED : { status: 'error', data: null, error: publicError(error) });
    }
  }

  return {
    subscribe: readable.subscribe,
    get current() {
      return readable.current;
    },
    reload: () => void load(false),
    mutate(data) {
      abort();
      update((s) => ({
        status: 'ok',
        data: typeof data === 'function' ? (data as (old: T | null) => T)(s.data) : data,
        error: null,
      }));
    },
  };
}

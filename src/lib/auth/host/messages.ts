// What a page and the session engine say to each other over a MessagePort, as two typed tables: the
// page's commands, each with what it carries, its check and the engine's answer; and the engine's
// notices to its pages. A command the table lacks does not compile, nor one without a check; the
// engine (session/engine.ts) must have a handler for each. Every message is input from a page of the
// origin, any script of which can reach the engine: it is checked before anything of it is used.
import type { AuthErrorCode, AuthErrorDetails } from '../protocol/errors';
import type { SignInHints } from '../protocol/hints';
import { tokenList } from '../protocol/scope';
import type { StepUpOptions } from '../protocol/scope';
import type { Claims, PendingSignIn } from '../protocol/steps';
import type { IdleState } from '../session/idle';
import type { SignOutReason } from '../page/events';

/** The session as every page of the app shares it: never a token. */
export type SharedSession<C extends Claims> =
  | { status: 'signed-out' }
  | { status: 'signed-in'; user: C; expiresAt: number; offline: boolean; endsAt?: number }
  | { status: 'expired'; error: AuthErrorDetails & { code: AuthErrorCode } };

/** A change of the shared session, as the engine tells it to every page: each is one transition of the page's store. */
export type Transition<C extends Claims> =
  | { type: 'signed-in'; user: C; expiresAt: number }
  | { type: 'renewed'; expiresAt: number }
  | { type: 'offline' }
  | { type: 'renew-failed'; error: WireError }
  /** The session cannot be renewed without the person (the hidden frame cannot work): it ends at `endsAt`. */
  | { type: 'ending'; endsAt: number }
  | { type: 'expired'; error?: WireError }
  | { type: 'signed-out'; reason: SignOutReason };

/** An AuthError across the port: its code and details, never its cause. */
export type WireError = AuthErrorDetails & { code: AuthErrorCode };

/** What a sign-in asks the engine to build (authorize.ts): the app's hints and step-up checked there. */
export interface AuthorizeBody {
  returnTo: string;
  prompt?: 'none' | 'login';
  ask: StepUpOptions & SignInHints;
}

/** Every command a page sends, by type: what it carries (`body`) and what the engine answers. */
export interface Commands<C extends Claims> {
  /** A page of the app opened: `page` names the Web Lock it holds while it lives. Answer: the session now. */
  join: {
    body: { page: string };
    /** The session now; the origins that may receive a token (userinfo's among them); what every sign-in asks for. */
    answer: { session: SharedSession<C>; idle: IdleState; allowed: string[]; scope: string };
  };
  /** The authorization request for a sign-in, restore or step-up, and the pending record the page keeps for the callback. */
  authorize: { body: AuthorizeBody; answer: { url: string; pending: PendingSignIn } };
  /** The callback's response (checked by the page for shape, single-use record taken): exchanged here, at most once. */
  complete: { body: { response: string; pending: PendingSignIn }; answer: { returnTo: string } };
  /** Ends the session everywhere and revokes it; the answer is the provider's end-session request, when it has one. */
  signOut: { body: { reason: 'user' }; answer: { endSession?: { url: string; state: string } } };
  /** The access token for a request to `origin` (the API's own for an origin of `apis`), renewed first when expired. */
  token: { body: { origin: string }; answer: { accessToken: string; api: boolean; keys?: CryptoKeyPair } };
  /** `refused` was refused by a resource (RFC 6750 §3.1 invalid_token): renew once for every page. True when renewed. */
  renew: { body: { refused: string }; answer: boolean };
  /** An API refused its own token `accessToken`: the next request for `origin` gets another. */
  forget: { body: { origin: string; accessToken: string }; answer: null };
  /** A resource refused a freshly renewed `refused`: the session ends, in every page. */
  end: { body: { refused: string }; answer: null };
  /** The person used the page (input, or Stay signed in): the idle deadline moves for every page. */
  active: { body: Record<string, never>; answer: null };
  /** The page came back (shown, resumed, online): what is due is done now, as timers may have stalled. */
  wake: { body: Record<string, never>; answer: null };
  /**
   * A page that found no session restores it in a hidden frame of its own (session/frames.ts): `restored`,
   * `signed-out` (the provider has no session for the person), or `unavailable` (no frame here, or it could not work).
   */
  restore: { body: Record<string, never>; answer: 'restored' | 'signed-out' | 'unavailable' };
  /** What the hidden frame the engine asked for brought back: the response its callback page handed over, or why none. */
  framed: { body: FrameAnswer; answer: null };
}

/** A hidden frame's outcome (page/frame.ts), for the frame whose request carried `state`. */
export type FrameAnswer = { state: string; response: string } | { state: string; failure: 'blocked' | 'timeout' };

export type CommandType = keyof Commands<Claims>;
export type Body<K extends CommandType> = Commands<Claims>[K]['body'];
export type Answer<C extends Claims, K extends CommandType> = Commands<C>[K]['answer'];

/** What travels from a page: a numbered command. */
export interface Request<K extends CommandType = CommandType> {
  id: number;
  type: K;
  body: Body<K>;
}

/** What travels to a page: the answer to a command, or a notice to every page. */
export type Reply<C extends Claims> =
  | { id: number; answer: unknown }
  | { id: number; error: WireError }
  | { notice: 'transition'; transition: Transition<C> }
  | { notice: 'idle'; idle: IdleState }
  /** To one page: open `url` in a hidden frame and answer with `framed` (session/frames.ts). */
  | { notice: 'frame'; url: string; state: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length <= max;
/** VSCHARs (RFC 6749 §A.12), as tokens are. */
const isToken = (value: unknown) => isText(value, 16 * 1024) && /^[\x20-\x7e]+$/.test(value);
const isEmpty = (value: unknown) => isObject(value) && Object.keys(value).length === 0;

/** A pending record a page read from its own storage: every script of the origin can write there. */
function isPending(value: unknown): value is PendingSignIn {
  return (
    isObject(value) &&
    ['state', 'codeVerifier', 'returnTo'].every((key) => isText(value[key], 8192)) &&
    (value.nonce === undefined || isText(value.nonce, 8192)) &&
    typeof value.silent === 'boolean' &&
    Number.isFinite(value.createdAt) &&
    (value.stepUp === undefined || isObject(value.stepUp))
  );
}

function isAsk(value: unknown): value is AuthorizeBody['ask'] {
  if (!isObject(value)) return false;
  const { scope, acr_values, extraParams } = value;
  return (
    (scope === undefined || !!tokenList(scope)) &&
    (acr_values === undefined || !!tokenList(acr_values)) &&
    (extraParams === undefined || (isObject(extraParams) && Object.values(extraParams).every((v) => isText(v, 2048))))
  );
}

/** Each command's check: the shape and sizes of its body, before the engine reads it. */
export const checks: { [K in CommandType]: (body: unknown) => body is Body<K> } = {
  // The lock's name: 16 to 128 word characters or dashes (a UUID), the length bounded by the pattern alone.
  join: (body): body is Body<'join'> => isObject(body) && typeof body.page === 'string' && /^[\w-]{16,128}$/.test(body.page),
  authorize: (body): body is Body<'authorize'> =>
    isObject(body) &&
    isText(body.returnTo, 512) &&
    (body.prompt === undefined || body.prompt === 'none' || body.prompt === 'login') &&
    isAsk(body.ask),
  complete: (body): body is Body<'complete'> => isObject(body) && isText(body.response, 32 * 1024) && isPending(body.pending),
  signOut: (body): body is Body<'signOut'> => isObject(body) && body.reason === 'user',
  token: (body): body is Body<'token'> => isObject(body) && isText(body.origin, 2048),
  renew: (body): body is Body<'renew'> => isObject(body) && isToken(body.refused),
  forget: (body): body is Body<'forget'> => isObject(body) && isText(body.origin, 2048) && isToken(body.accessToken),
  end: (body): body is Body<'end'> => isObject(body) && isToken(body.refused),
  active: (body): body is Body<'active'> => isEmpty(body),
  wake: (body): body is Body<'wake'> => isEmpty(body),
  restore: (body): body is Body<'restore'> => isEmpty(body),
  framed: (body): body is Body<'framed'> =>
    isObject(body) &&
    isText(body.state, 8192) &&
    (isText(body.response, 32 * 1024) || body.failure === 'blocked' || body.failure === 'timeout'),
};

/** The number a page gave its message, when it gave one: a refused command is still answered, so no page waits on it. */
export const requestId = (data: unknown): number | undefined =>
  isObject(data) && Number.isSafeInteger(data.id) ? (data.id as number) : undefined;

/** A page's message as a command the engine knows, checked; undefined for anything else. */
export function parseRequest(data: unknown): Request | undefined {
  if (!isObject(data) || !Number.isSafeInteger(data.id) || typeof data.type !== 'string') return undefined;
  const type = data.type as CommandType;
  return Object.hasOwn(checks, type) && checks[type](data.body) ? (data as unknown as Request) : undefined;
}

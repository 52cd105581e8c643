// Renewal and restore without a refresh token: a `prompt=none` authorization (OIDC Core §3.1.2.1) in a
// hidden frame that one of the engine's pages opens (page/frame.ts). The engine builds the request and
// keeps its pending record, which never reaches a page or storage; the frame's callback page hands its
// response back through that page (`framed`), and here it is checked exactly as a top-level callback's
// (its size, then state, iss and error: steps.ts) before its code is exchanged, once. One frame at a time.
import type { FrameAnswer } from '../host/messages';
import { authorizationRequest } from '../protocol/authorize';
import { checkShape } from '../protocol/callback';
import { AuthError } from '../protocol/errors';
import { completeSignIn, type Claims, type Proof, type Server, type TokenSet } from '../protocol/steps';
import type { PagePort, Pages } from './pages';
import { NO_PAGE } from './renewal';

export interface FrameParts<C extends Claims> {
  server: Server;
  pages: Pick<Pages<C>, 'tell' | 'pick'>;
  now(): number;
}

/** The page gives up on its frame after the request timeout (page/frame.ts); this covers a page gone meanwhile. */
const ANSWER_SLACK_MS = 5_000;

/** The engine's hidden-frame authorizations; see the file's head. */
export interface Frames<C extends Claims> {
  /**
   * A prompt=none authorization for `scope` (the session's, a step-up's widening included) in a hidden
   * frame of `page` (default: the page that spoke last), after any under way: the new tokens and the
   * claims, or an AuthError (`frame_refused`, `login_required`, …). Not abortable: the caller holds the
   * tokens once it returns, and revokes them if its session ended.
   */
  authorize(scope: string, dpop: Proof, page?: PagePort): Promise<{ tokens: TokenSet; user: C }>;
  /** A page's `framed`: settles the frame that page was asked to open with that `state`; anything else is ignored. */
  answered(answer: FrameAnswer, from: PagePort): void;
}

export function createFrames<C extends Claims>({ server, pages, now }: FrameParts<C>): Frames<C> {
  let waiting: { page: PagePort; state: string; settle(answer: FrameAnswer): void } | undefined;
  let turn: Promise<unknown> = Promise.resolve();

  /** Has `page` open `url` in a hidden frame; resolves with the response its callback page handed over. */
  function open(page: PagePort, url: string, state: string): Promise<URLSearchParams> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle({ state, failure: 'timeout' }), server.timeoutMs + ANSWER_SLACK_MS);
      function settle(answer: FrameAnswer) {
        clearTimeout(timer);
        waiting = undefined;
        if ('response' in answer) resolve(new URLSearchParams(answer.response));
        else reject(new AuthError('frame_refused', { reason: answer.failure }));
      }
      waiting = { page, state, settle };
      pages.tell(page, { notice: 'frame', url, state });
    });
  }

  async function authorize(scope: string, dpop: Proof, page: PagePort | undefined) {
    if (!page) throw new AuthError('frame_refused', { reason: NO_PAGE });
    const { url, pending } = await authorizationRequest(server, { returnTo: '/', prompt: 'none', stepUp: { scope }, now: now() });
    const params = await open(page, url, pending.state);
    checkShape({ params, inFragment: false });
    return completeSignIn<C>(server, dpop, { params }, pending, now());
  }

  return {
    authorize(scope, dpop, page = pages.pick()) {
      const run = turn.then(() => authorize(scope, dpop, page));
      turn = run.catch(() => {});
      return run;
    },
    answered(answer, from) {
      if (waiting?.page === from && waiting.state === answer.state) waiting.settle(answer);
    },
  };
}

// The sign-out confirmation on a page of its own (RP-Initiated Logout 1.0 §2: the OP asks whether to
// sign out of it too). oidc-provider renders that prompt as the answer to the end-session request
// itself, so the request's URL becomes a history entry and Back sends the end-session request again.
// Here the end-session endpoint answers with a redirect to this page instead, as many providers do (to
// a logout page of their own): history keeps a URL that carries nothing, and Back re-opens this page.
import { randomBytes } from 'node:crypto';

import { htmlHeaders } from './http.js';
import { logoutPage, messagePage } from './pages.js';

/** Where the prompts live on the account origin; not under the end-session path. */
export const LOGOUT_PAGE_PATH = '/logout/';

/** As long as oidc-provider keeps an interaction: an unanswered prompt is gone after that. */
const PROMPT_TTL_MS = 10 * 60 * 1000;

const ROUTE = /^\/logout\/([\w-]{22})$/;

/**
 * @typedef {object} LogoutPrompt
 * @property {string} secret oidc-provider's xsrf secret of this prompt (its form carries it)
 * @property {string} form oidc-provider's hidden form, already escaped
 * @property {string} [clientName]
 * @property {string} [userName]
 */

/**
 * @param {{ csp: string, now?: () => number }} options
 */
export function createLogoutPrompts({ csp, now = Date.now }) {
  /** @type {Map<string, LogoutPrompt & { expiresAt: number }>} */
  const pending = new Map();
  const headers = htmlHeaders(csp);

  return {
    /**
     * Keeps a prompt of oidc-provider's logoutSource; returns the path of its page.
     * @param {LogoutPrompt} prompt
     */
    add(prompt) {
      for (const [id, { expiresAt }] of pending) if (expiresAt <= now()) pending.delete(id);
      const id = randomBytes(16).toString('base64url');
      pending.set(id, { ...prompt, expiresAt: now() + PROMPT_TTL_MS });
      return LOGOUT_PAGE_PATH + id;
    },

    /**
     * The person answered the prompt holding `secret` (oidc-provider's confirm step checked it): its
     * page says so from now on, and offers no form.
     * @param {string} secret
     */
    answered(secret) {
      for (const [id, prompt] of pending) if (prompt.secret === secret) pending.delete(id);
    },

    /**
     * GET /logout/<id>: the prompt while it waits for an answer, afterwards a page saying it is over.
     * @param {import('node:http').IncomingMessage} req
     * @param {import('node:http').ServerResponse} res
     * @param {string} path
     */
    handle(req, res, path) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const id = ROUTE.exec(path)?.[1];
      const prompt = id === undefined ? undefined : pending.get(id);
      if (!prompt || prompt.expiresAt <= now()) {
        res.writeHead(410, headers).end(
          messagePage({
            title: 'Sign-out request answered',
            message: 'This sign-out request was already answered or has expired. You can close this page.',
          }),
        );
        return;
      }
      res.writeHead(200, headers).end(logoutPage(prompt));
    },
  };
}

// Answers of providers configured unlike ours, which the local provider gives when a test asks for them
// (startIdp options allowFraming and endSessionGet), so check-config and the e2e tests can meet them.
import { htmlHeaders, readForm } from './http.js';
import { messagePage } from './pages.js';

/**
 * An authorization request sent as a frame sends it, answered as a provider that forbids framing does:
 * a page, not a redirect, whose headers keep it out of any frame (the CSP from pages.pageCsp already
 * says frame-ancestors 'none'; X-Frame-Options for browsers that read only that).
 * @param {import('node:http').ServerResponse} res
 * @param {string} csp
 */
export function refuseFraming(res, csp) {
  res
    .writeHead(200, { ...htmlHeaders(csp), 'X-Frame-Options': 'DENY' })
    .end(messagePage({ title: 'Sign in', message: 'This page cannot be shown in a frame. Open the app and sign in there.' }));
}

/**
 * The end-session endpoint of a POST-only provider: a GET is a 405, and a POST's form is handed to
 * oidc-provider as the GET it serves (RP-Initiated Logout 1.0 §2 allows either method).
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {import('node:http').RequestListener} next oidc-provider's callback
 */
export async function endSessionByPostOnly(req, res, next) {
  if (req.method !== 'POST') {
    res.writeHead(405, { Allow: 'POST' }).end();
    return;
  }
  // Anything but a form is no parameters, which oidc-provider answers as it answers an empty GET.
  const form = (await readForm(req)) ?? new URLSearchParams();
  // The body is read: oidc-provider must not look for one.
  delete req.headers['content-type'];
  delete req.headers['content-length'];
  req.method = 'GET';
  req.url = `${req.url?.split('?')[0]}?${form}`;
  return next(req, res);
}

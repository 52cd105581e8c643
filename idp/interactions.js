// Our login and consent pages: the interaction routes oidc-provider sends the
// browser to (interactions.url in provider.js).
//
// CSRF: every step needs the provider's interaction cookie (SameSite=Lax, path
// /interaction/<uid>), which browsers do not send on cross-site POSTs, and the
// uid in the URL must match the one stored behind that cookie.
import { errors } from 'oidc-provider';

import { htmlHeaders, readForm } from './http.js';
import { consentPage, loginPage, messagePage, pageCsp } from './pages.js';
import { originsOf } from './provider.js';

const ROUTE = /^\/interaction\/([\w-]{1,64})(?:\/(login|consent|abort))?$/;

const ABORTED = { error: 'access_denied', error_description: 'End-User aborted interaction' };

/**
 * @param {import('oidc-provider').default} provider
 * @param {{ redirectUris: string[], users: import('./users.js').UserDirectory }} options
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, path: string) => Promise<void>}
 */
export function createInteractionHandler(provider, { redirectUris, users }) {
  const headers = htmlHeaders(pageCsp(originsOf(redirectUris)));

  /** @param {import('node:http').ServerResponse} res @param {number} status @param {string} html */
  const send = (res, status, html) => {
    res.writeHead(status, headers);
    res.end(html);
  };

  /** @param {import('node:http').ServerResponse} res */
  const expired = (res) =>
    send(
      res,
      400,
      messagePage({
        title: 'Sign-in expired',
        message: 'This sign-in request has expired or was already completed. Go back to the app and sign in again.',
      }),
    );

  return async function handleInteraction(req, res, path) {
    const match = ROUTE.exec(path);
    if (!match) {
      send(res, 404, messagePage({ title: 'Not found', message: 'There is nothing at this address.' }));
      return;
    }
    const [, uid, action] = match;
    const expectedMethod = action ? 'POST' : 'GET';
    if (req.method !== expectedMethod) {
      res.writeHead(405, { Allow: expectedMethod }).end();
      return;
    }

    let details;
    try {
      details = await provider.interactionDetails(req, res);
    } catch (error) {
      if (error instanceof errors.SessionNotFound) return expired(res);
      throw error;
    }
    if (details.uid !== uid) return expired(res);

    const client = await provider.Client.find(String(details.params.client_id));
    const clientName = client?.clientName ?? String(details.params.client_id);
    const prompt = details.prompt.name;

    if (action === undefined) {
      if (prompt === 'login') return send(res, 200, loginPage({ uid, clientName }));
      if (prompt === 'consent') return send(res, 200, renderConsent(details, clientName, users));
      return expired(res);
    }

    const form = await readForm(req);
    if (!form) {
      send(res, 400, messagePage({ title: 'Bad request', message: 'The form could not be read.' }));
      return;
    }

    if (action === 'abort') {
      await provider.interactionFinished(req, res, ABORTED, { mergeWithLastSubmission: false });
      return;
    }

    if (action === 'login' && prompt === 'login') {
      const username = form.get('username') ?? '';
      const user = users.verifyPassword(username, form.get('password'));
      if (!user) {
        send(res, 200, loginPage({ uid, clientName, username, error: 'Wrong username or password.' }));
        return;
      }
      await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
      return;
    }

    if (action === 'consent' && prompt === 'consent') {
      if (form.get('decision') !== 'allow') {
        await provider.interactionFinished(req, res, ABORTED, { mergeWithLastSubmission: false });
        return;
      }
      const grantId = await saveGrant(provider, details);
      // Keep the login result of this interaction and add the consent to it.
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }

    // The form does not belong to the step the interaction is at (a stale tab).
    expired(res);
  };
}

/**
 * The API scopes (RFC 8707) the consent prompt found missing, per resource indicator: oidc-provider
 * puts them in its otherwise untyped details beside the OpenID scopes.
 * @param {import('oidc-provider').Interaction} details
 */
function missingResourceScopes(details) {
  return /** @type {Record<string, string[]> | undefined} */ (details.prompt.details.missingResourceScopes) ?? {};
}

/**
 * @param {import('oidc-provider').Interaction} details from provider.interactionDetails
 * @param {string} clientName
 * @param {import('./users.js').UserDirectory} users
 */
function renderConsent(details, clientName, users) {
  const oidcScopes = /** @type {string[] | undefined} */ (details.prompt.details.missingOIDCScope) ?? [];
  const missing = [...oidcScopes, ...Object.values(missingResourceScopes(details)).flat()];
  const requested = String(details.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  return consentPage({
    uid: details.uid,
    clientName,
    userName: users.findUserBySub(details.session?.accountId)?.name ?? 'unknown user',
    scopes: missing.length ? missing : requested,
  });
}

/**
 * Records what the person allowed: the grant is then found again through the
 * session (loadExistingGrant), which is what lets prompt=none succeed later.
 * A step-up for an API scope (e.g. notes.write) adds it to the same grant.
 * @param {import('oidc-provider').default} provider
 * @param {import('oidc-provider').Interaction} details
 */
async function saveGrant(provider, details) {
  const {
    prompt: { details: missing },
    params,
    session,
  } = details;
  // The consent prompt only comes after login, so the interaction always has a session here.
  if (!session) throw new Error('consent interaction without a session');
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: String(params.client_id) });
  if (!grant) throw new Error('grant of the interaction not found');
  // oidc-provider's consent prompt puts these string lists in its otherwise untyped details.
  const scopes = /** @type {string[] | undefined} */ (missing.missingOIDCScope);
  const claims = /** @type {string[] | undefined} */ (missing.missingOIDCClaims);
  if (scopes) grant.addOIDCScope(scopes.join(' '));
  if (claims) grant.addOIDCClaims(claims);
  for (const [resource, resourceScopes] of Object.entries(missingResourceScopes(details))) {
    grant.addResourceScope(resource, resourceScopes.join(' '));
  }
  return grant.save();
}

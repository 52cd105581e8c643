// Step-up: an interactive authorization that asks for more than the session has, a scope a resource
// named (RFC 6750 §3.1) or a stronger or fresher sign-in (RFC 9470 §4), the record of what it asks,
// and the checks after the callback that it got it. The engine builds and checks them; the page's
// client checks a caller's values before anything is sent (a TypeError).
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';
import type { Claims, PendingSignIn, Proof, Server, TokenSet } from './steps';
import { maxAge, tokenList, unionScope, type StepUp, type StepUpOptions } from './scope';
import type { CallbackResponse } from './callback';
import { completeSignIn } from './steps';

/**
 * The step-up for an authorization request: the session's scope plus `scope`, which is recorded for the
 * API of `resource` (one of `resources`) on top of what earlier step-ups added per API (`apis`), with
 * `acr_values` and `max_age`; undefined when nothing is asked. A value that is not valid is the caller's
 * bug: TypeError.
 */
export function stepUpRequest(
  sessionScope: string,
  { scope, resource, acr_values, max_age }: StepUpOptions,
  resources: readonly string[] = [],
  apis?: Record<string, string>,
): StepUp | undefined {
  if (scope === undefined && acr_values === undefined && max_age === undefined) return undefined;
  const seconds = maxAge(max_age);
  const invalid =
    (scope !== undefined && !tokenList(scope)) ||
    (acr_values !== undefined && !tokenList(acr_values)) ||
    (max_age !== undefined && seconds === undefined) ||
    (resource !== undefined && !resources.includes(resource));
  if (invalid) throw new TypeError('signIn: scope and acr_values are scope-token lists, max_age whole seconds, resource an API');
  if (scope && resource) apis = { ...apis, [resource]: unionScope(apis?.[resource], scope) };
  return {
    scope: unionScope(sessionScope, scope),
    ...(scope && { added: scope }),
    apis,
    ...(acr_values && { acr_values }),
    ...(seconds !== undefined && { max_age: seconds }),
  };
}

/**
 * What a step-up asked that the token response lacks: the `acr` when the provider names one outside
 * `acr_values`, or a scope token the granted `scope` leaves out (absent means as requested, RFC 6749 §5.1).
 * With resource indicators the scopes are granted per resource (RFC 8707 §2.2), so a token without one
 * need not carry them: the token for the API is asked for them, and a refusal there is
 * `interaction_required`.
 */
export function checkStepUp(stepUp: StepUp, response: oauth.TokenEndpointResponse, resources: readonly string[] = []): void {
  const acr = oauth.getValidatedIdTokenClaims(response)?.acr;
  if (stepUp.acr_values && acr !== undefined && !stepUp.acr_values.split(' ').includes(acr as string)) {
    throw new AuthError('step_up_failed', { acr_values: stepUp.acr_values });
  }
  const granted = resources.length ? undefined : response.scope?.split(' ');
  const missing = granted && stepUp.added?.split(' ').filter((token) => !granted.includes(token));
  if (missing?.length) throw new AuthError('step_up_failed', { scope: missing.join(' ') });
}

/** oauth4webapi's refusal of `auth_time` (too old, or absent though `max_age` was sent) as `step_up_failed`. */
export function authTimeFailure(err: unknown, stepUp: StepUp): AuthError | undefined {
  if (stepUp.max_age === undefined || !(err instanceof oauth.OperationProcessingError)) return undefined;
  const cause = err.cause as { claim?: string; claims?: { auth_time?: unknown } } | undefined;
  const tooOld = err.code === oauth.JWT_TIMESTAMP_CHECK && cause?.claim === 'auth_time';
  const absent = err.code === oauth.INVALID_RESPONSE && !!cause?.claims && cause.claims.auth_time === undefined;
  return tooOld || absent ? new AuthError('step_up_failed', { max_age: stepUp.max_age }, err) : undefined;
}

/** What the record says step-ups added per API: only the instance's own resources, each with a scope list. */
const wellFormedApis = (apis: unknown, resources: readonly string[]) =>
  apis === undefined ||
  (typeof apis === 'object' &&
    apis !== null &&
    !Array.isArray(apis) &&
    Object.entries(apis).every(([resource, list]) => resources.includes(resource) && tokenList(list)));

/** completeSignIn for a callback that answers a step-up, with its checks: a shortfall is `step_up_failed`. */
export async function completeStepUp<C extends Claims>(
  server: Server,
  dpop: Proof,
  callback: CallbackResponse,
  pending: PendingSignIn,
  now: number,
): Promise<{ tokens: TokenSet; user: C }> {
  const stepUp = pending.stepUp!;
  // The record sat in storage that every script of the origin can write: only a well-formed one is acted on.
  const wellFormed =
    tokenList(stepUp.scope) &&
    [stepUp.added, stepUp.acr_values].every((list) => list === undefined || tokenList(list)) &&
    (stepUp.max_age === undefined || (typeof stepUp.max_age === 'number' && maxAge(stepUp.max_age) !== undefined)) &&
    wellFormedApis(stepUp.apis, server.resources);
  if (!wellFormed) throw new AuthError('invalid_response');
  try {
    return await completeSignIn<C>(server, dpop, callback, pending, now, (response) =>
      checkStepUp(stepUp, response, server.resources),
    );
  } catch (err) {
    throw authTimeFailure(err, stepUp) ?? err;
  }
}

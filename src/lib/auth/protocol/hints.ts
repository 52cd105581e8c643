// What an app may add to an authorization request (OIDC Core §3.1.2.1): who is signing in
// (`login_hint`), in which language (`ui_locales`), how the provider should ask (`prompt`), and extra
// parameters by the names the instance's options allow. Every value may come from a URL, so each is
// checked and bounded; a refusal is an AuthError before anything is sent. Checked by the session
// engine as it builds the request (authorize.ts); hintsOf reads them from a link.
import { AuthError, bounded } from './errors';

/** The `prompt` values of OIDC Core §3.1.2.1 and OpenID Connect Prompt Create 1.0. */
export const PROMPTS = ['none', 'login', 'consent', 'select_account', 'create'] as const;
export type Prompt = (typeof PROMPTS)[number];

/** What `signIn()` may add to the authorization request; the names are the parameters' (OIDC Core §3.1.2.1). */
export interface SignInHints {
  /** Who is signing in: a user name or e-mail address the provider may prefill. */
  login_hint?: string;
  /** Preferred languages of the provider's pages: BCP 47 tags, space-separated, best first. */
  ui_locales?: string;
  /** `create` only where the provider advertises it (`prompt_values_supported`). */
  prompt?: Prompt;
  /** Further parameters, only by names the instance's `extraParams` option allows. */
  extraParams?: Record<string, string>;
}

/**
 * Parameters this module sets or answers for itself, or that would change what the request is (a
 * request object, a response mode, a token in the URL): never an app's extra parameter.
 * `prompt`, `login_hint` and `ui_locales` have options of their own.
 */
const PROTOCOL_PARAMS = [
  'response_type',
  'response_mode',
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'code_verifier',
  'resource',
  'request',
  'request_uri',
  'dpop_jkt',
  'id_token_hint',
  'acr_values',
  'max_age',
  'prompt',
  'login_hint',
  'ui_locales',
];

/** A hint or extra value: printable (no control or format characters), within this length. */
const MAX_VALUE_CHARS = 512;
const PRINTABLE = /^[^\p{C}]+$/u;
/** BCP 47 language tags, loosely (RFC 5646 §2.1), space-separated (OIDC Core §3.1.2.1). */
const LOCALES = /^[a-z]{1,8}(?:-[a-z\d]{1,8})*(?: [a-z]{1,8}(?:-[a-z\d]{1,8})*)*$/i;
const MAX_LOCALES_CHARS = 128;

const printable = (value: unknown, max = MAX_VALUE_CHARS): value is string =>
  typeof value === 'string' && value.length <= max && PRINTABLE.test(value);

/** `ui_locales` as OIDC Core §3.1.2.1 has it: BCP 47 tags, space-separated, bounded. */
export const validLocales = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_LOCALES_CHARS && LOCALES.test(value);

/** `login_hint`: printable text of at most 256 characters. */
export const validLoginHint = (value: unknown): value is string => printable(value, 256);

const refuse = (parameter: string) => new AuthError('param_not_allowed', { parameter });

/**
 * The parameters `hints` add to an authorization request, checked: a name `allowed` does not list, a
 * value out of bounds, or `prompt=create` that the provider's metadata (`as`) does not advertise
 * (OpenID Connect Prompt Create 1.0 §4) is AuthError `param_not_allowed` naming the parameter.
 */
export function hintParams(
  { login_hint, ui_locales, prompt, extraParams = {} }: SignInHints,
  allowed: readonly string[] = [],
  as: Record<string, unknown> = {},
): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(extraParams)) {
    if (!allowed.includes(name) || PROTOCOL_PARAMS.includes(name)) throw refuse(bounded(name, 64));
    if (!printable(value)) throw refuse(name);
    params[name] = value;
  }
  if (login_hint !== undefined && !validLoginHint(login_hint)) throw refuse('login_hint');
  if (ui_locales !== undefined && !validLocales(ui_locales)) throw refuse('ui_locales');
  const advertised =
    prompt !== 'create' || (Array.isArray(as.prompt_values_supported) && as.prompt_values_supported.includes('create'));
  if (prompt !== undefined && (!PROMPTS.includes(prompt) || !advertised)) throw refuse('prompt');
  return { ...params, ...(login_hint && { login_hint }), ...(ui_locales && { ui_locales }), ...(prompt && { prompt }) };
}

/**
 * `login_hint` and `ui_locales` of a query (an app's sign-in link), each kept only when valid: a link
 * is anyone's to write, so an invalid hint is dropped rather than refused.
 */
export function hintsOf(query: URLSearchParams): Pick<SignInHints, 'login_hint' | 'ui_locales'> {
  const login_hint = query.get('login_hint');
  const ui_locales = query.get('ui_locales');
  return { ...(validLoginHint(login_hint) && { login_hint }), ...(validLocales(ui_locales) && { ui_locales }) };
}

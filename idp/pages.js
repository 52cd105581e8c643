// HTML of every page the identity provider renders: our login and consent
// pages plus replacements for oidc-provider's built-in logout/error pages
// (those load Google Fonts, which this project does not allow).
// Every dynamic value goes through escapeHtml; pages carry no script.

/** @param {unknown} value */
export function escapeHtml(value) {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Content-Security-Policy for pages of the account origin.
 * - style-src 'unsafe-inline': the single <style> block below; there is no
 *   user-controlled markup, so inline styles are no injection vector.
 * - script-src 'self': we serve no scripts, but oidc-provider's auto-submitting
 *   form_post page (end session without a session) appends the sha256 of its
 *   inline script to an existing script-src directive; it needs one to exist.
 * - form-action must list the app origins, because browsers apply it to the
 *   redirects that follow a form submission (login -> authorize -> app).
 * @param {Iterable<string>} appOrigins
 */
export function pageCsp(appOrigins) {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    `form-action 'self' ${[...appOrigins].join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f5f6f8;--card:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--accent:#0a58ca;--accent-fg:#fff;--err:#b42318}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--card:#1a2027;--fg:#e6edf3;--muted:#9aa5b1;--line:#30363d;--accent:#4c8dff;--accent-fg:#0b1220;--err:#ff8a80}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:min(24rem,100% - 2rem);background:var(--card);border:1px solid var(--line);border-radius:12px;padding:2rem;margin:1rem 0}
h1{font-size:1.4rem;margin:0 0 .25rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.95rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{width:100%;padding:.6rem .7rem;font:inherit;color:inherit;background:transparent;border:1px solid var(--line);border-radius:8px}
input:focus-visible,button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.65rem 1rem;font:inherit;font-weight:600;border-radius:8px;border:1px solid var(--line);background:transparent;color:inherit;cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
.error{color:var(--err);border:1px solid currentColor;border-radius:8px;padding:.5rem .75rem}
ul{padding-left:1.25rem}
code{font-size:.9em}
`;

/**
 * @param {{ title: string, body: string }} page body must already be escaped HTML
 */
function layout({ title, body }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Demo identity provider</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/**
 * @param {{ uid: string, clientName: string, username?: string, error?: string }} options
 */
export function loginPage({ uid, clientName, username = '', error }) {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  return layout({
    title: 'Sign in',
    body: `<h1>Sign in</h1>
<p class="muted">to continue to ${escapeHtml(clientName)}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${action}/login" autocomplete="on">
<label for="username">Username</label>
<input id="username" name="username" type="text" value="${escapeHtml(username)}" autocomplete="username" autocapitalize="none" spellcheck="false" required${username ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${username ? ' autofocus' : ''}>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>
<form method="post" action="${action}/abort"><div class="actions"><button type="submit">Cancel</button></div></form>
<p class="muted">Demo users: <code>alice</code> / <code>wonderland</code>, <code>bob</code> / <code>builder</code></p>`,
  });
}

/** Human descriptions of the scopes a person is asked to approve. */
const SCOPE_TEXT = /** @type {Record<string, string>} */ ({
  openid: 'Confirm your identity',
  profile: 'Your name and username',
  email: 'Your email address',
  'service.api': 'Call the demo API on your behalf',
  'notes.read': 'Read your notes in the demo API',
  'notes.write': 'Add notes in the demo API',
});

/**
 * @param {{ uid: string, clientName: string, userName: string, scopes: string[] }} options
 */
export function consentPage({ uid, clientName, userName, scopes }) {
  const items = scopes
    .map(
      (scope) =>
        `<li>${escapeHtml(SCOPE_TEXT[scope] ?? scope)} <span class="muted">(<code>${escapeHtml(scope)}</code>)</span></li>`,
    )
    .join('\n');
  return layout({
    title: 'Allow access',
    body: `<h1>Allow access?</h1>
<p><strong>${escapeHtml(clientName)}</strong> would like to access your account.</p>
<p class="muted">Signed in as ${escapeHtml(userName)}</p>
<ul>
${items}
</ul>
<form method="post" action="/interaction/${encodeURIComponent(uid)}/consent">
<div class="actions">
<button type="submit" name="decision" value="cancel">Cancel</button>
<button class="primary" type="submit" name="decision" value="allow" autofocus>Allow</button>
</div>
</form>`,
  });
}

/**
 * @param {{ title: string, message: string, details?: string }} options
 */
export function messagePage({ title, message, details }) {
  return layout({
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
${details ? `<p class="muted"><code>${escapeHtml(details)}</code></p>` : ''}`,
  });
}

/**
 * Logout confirmation (RP-Initiated Logout). `form` is oidc-provider's own
 * hidden form (action and xsrf token, already escaped by the provider); the
 * buttons submit it, so the page needs no script. "Stay signed in" submits
 * without logout=yes: the provider keeps the session and still returns to the app.
 * @param {{ clientName?: string, userName?: string, form: string }} options
 */
export function logoutPage({ clientName, userName, form }) {
  const from = clientName ? ` (you came from ${escapeHtml(clientName)})` : '';
  return layout({
    title: 'Sign out',
    body: `<h1>Sign out?</h1>
<p>Do you want to sign out of the demo identity provider${from}?</p>
${userName ? `<p class="muted">Signed in as ${escapeHtml(userName)}</p>` : ''}
${form}
<div class="actions">
<button type="submit" form="op.logoutForm">Stay signed in</button>
<button class="primary" type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
</div>`,
  });
}

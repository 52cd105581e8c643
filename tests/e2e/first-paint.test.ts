// Issue 24: no flash of the wrong state at start-up. A stranger's first paint is the start page with
// **Sign in**, never a progress message first; a returning signed-in person (a reload, a new tab beside
// a signed-in tab) never sees **Sign in** before the claims. Every text the app's documents ever
// rendered in a button, a status or a heading is recorded from the first mutation on.
import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { joined, readClaims, signIn, useEnv } from './helpers';

const PROGRESS = ['Signing you in…', 'Taking you to the identity service…'];

/** Records, per document of the app's origin, each text a button, status or heading showed, in order. */
async function recordShown(context: BrowserContext, appUrl: string): Promise<string[][]> {
  const documents: string[][] = [];
  // Each page's own current document: two pages' reports never mix.
  const current = new Map<unknown, string[]>();
  await context.exposeBinding('__recordShown', ({ page }, fresh: boolean, text: string) => {
    if (fresh || !current.has(page)) current.set(page, documents[documents.push([]) - 1]);
    current.get(page)!.push(text);
  });
  await context.addInitScript((origin) => {
    if (location.origin !== origin) return;
    const record = (window as unknown as { __recordShown(fresh: boolean, text: string): void }).__recordShown;
    let fresh = true;
    let last = '';
    new MutationObserver(() => {
      const shown = [...document.querySelectorAll('button, [role="status"], h1')]
        .filter((e) => e.checkVisibility())
        .map((e) => e.textContent?.trim() ?? '')
        .join(' | ');
      if (shown === last && !fresh) return;
      last = shown;
      record(fresh, shown);
      fresh = false;
    }).observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  }, new URL(appUrl).origin);
  return documents;
}

describe('first paint', () => {
  const env = useEnv();

  it('a stranger sees the start page with Sign in, never a progress message before it', async () => {
    const { context, page } = await env.open();
    const documents = await recordShown(context, env.stack.app.url);
    await page.goto(env.stack.app.url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // What loads after the first paint has loaded and settled too.
    await page.waitForLoadState('networkidle');

    const seen = documents.flat().filter(Boolean);
    expect(seen[0], 'the first thing shown').toContain('Sign in');
    for (const text of PROGRESS) expect(seen.join('\n')).not.toContain(text);
    expect(seen.at(-1)).toContain('Sign in');
  });

  it('a returning signed-in person never sees Sign in: not in a new tab, not after a reload', async () => {
    const session = await env.open();
    const { context, page } = session;
    const documents = await recordShown(context, env.stack.app.url);
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    await joined(page);

    const since = documents.length;
    const tab = await context.newPage();
    await tab.goto(env.stack.app.url + '#/profile');
    expect((await readClaims(tab)).name).toBe('Alice Liddell');
    await tab.close();
    await page.reload();
    expect((await readClaims(page)).name).toBe('Alice Liddell');

    const opened = documents.slice(since);
    // The new tab and the reloaded page, each showing the app worker's session (no silent restore).
    expect(opened.length).toBeGreaterThanOrEqual(2);
    for (const shown of opened) {
      for (const text of shown) expect(text.split(' | '), `shown: ${shown.join(' → ')}`).not.toContain('Sign in');
    }
    expect(opened.flat().join('\n')).toContain('Hello, Alice Liddell');
  });
});

// Accessibility scan with axe-core, run inside the page. axe is injected as a script, which the app's
// CSP forbids: only a context opened with `bypassCSP: true` can be scanned.
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** WCAG 2.0, 2.1 and 2.2 levels A and AA, plus axe's best practices. */
export const A11Y_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

export interface A11yViolation {
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements. */
  targets: string[];
}

/** Scan the whole document as it is now; resolves to axe's violations (none means the page passed). */
export async function scanA11y(page: Page): Promise<A11yViolation[]> {
  await page.addScriptTag({ content: axe.source });
  const results = await page.evaluate(
    (tags) => (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: 'tag', values: tags } }),
    A11Y_TAGS,
  );
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? null,
    help: v.help,
    targets: v.nodes.map((n) => n.target.join(' ')),
  }));
}

/** One line per violation, for an assertion message a person can act on. */
export function describeViolations(violations: A11yViolation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`).join('\n');
}

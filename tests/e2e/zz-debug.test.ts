import { it } from 'vitest';
import { signIn, useEnv } from './helpers';

const env = useEnv();
it('debug', async () => {
  const s = await env.open();
  const { page } = s;
  const msgs: string[] = [];
  page.on('console', (m) => msgs.push('console: ' + m.text()));
  page.on('pageerror', (e) => msgs.push('pageerror: ' + e.message));
  await signIn(s, env.stack.app.url);
  await page.waitForTimeout(3000);
  console.log(page.url(), await page.locator('body').innerText());
  const before = s.log.entries.length;
  await page.reload();
  await page.waitForTimeout(3000);
  console.log('after reload', page.url(), await page.locator('body').innerText());
  console.log(s.log.entries.slice(before).map((e) => e.method + ' ' + e.url).join('\n'));
  console.log(msgs.join('\n'));
}, 60000);

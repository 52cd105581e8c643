// The configuration error page: its markup is a <template> in index.html, filled in here as text.
import type { ConfigError } from '../config';

/** Replaces what `target` shows with the page naming the setting of config.json that is wrong. */
export function showConfigError(target: Element, { key, problem }: ConfigError): void {
  const page = (document.getElementById('config-error') as HTMLTemplateElement).content.cloneNode(true) as DocumentFragment;
  page.querySelector('[data-config-key]')!.textContent = key;
  page.querySelector('[data-config-problem]')!.textContent = problem;
  page.querySelector('button')!.onclick = () => location.reload();
  target.replaceChildren(page);
}

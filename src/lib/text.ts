// Text from a server or the URL is shown to people only after passing through here.

/** C0/C1 controls: shown as a space (newlines kept in multi-line text). */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** Invisible characters: bidirectional marks, overrides and isolates (Trojan Source), zero-width ones. */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

export const MAX_TEXT = 200;

/** Removes invisible and direction-changing characters and cuts the text to `max` characters. */
export function safeText(value: string, max = MAX_TEXT, { multiline = false } = {}): string {
  const cleaned = value
    .slice(0, max * 4)
    .replace(INVISIBLE, '')
    .replace(CONTROLS, (c) => (multiline && c === '\n' ? c : ' '))
    .trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}

/** A claim as display text: a string cleaned and bounded, anything else (a number, an object) not shown. */
export const claimText = (value: unknown, max = MAX_TEXT): string | undefined =>
  typeof value === 'string' ? safeText(value, max) : undefined;

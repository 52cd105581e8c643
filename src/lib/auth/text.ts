// Text from a server or the URL is shown to people only after passing through here.

/** C0/C1 controls, bidirectional marks, overrides and isolates (Trojan Source), and zero-width characters. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

export const MAX_TEXT = 200;

/** Removes invisible and direction-changing characters and cuts the text to `max` characters. */
export function safeText(value: string, max = MAX_TEXT, { multiline = false } = {}): string {
  const cleaned = value
    .slice(0, max * 4)
    .replace(multiline ? UNSAFE_BUT_NEWLINE : UNSAFE, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}

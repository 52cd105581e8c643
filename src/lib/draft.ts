// A draft kept across a step-up's trip to the identity service, so what the person typed is saved once
// they are back. It lives in sessionStorage (one tab's), with whose it is, when it was kept and a random
// id: what the person typed and nothing else, never a token. It ends with its session:
// - the view drops it when the session is signed out (sign-out reaches every tab's session);
// - an hour after it was kept it is dropped, checked when it is read;
// - it is sent at most once: its id is claimed in localStorage first, and a duplicated tab (whose
//   sessionStorage is a copy) that finds the id claimed drops its copy. A claim holds the id and when
//   it ends, the draft's end, and nothing else.

/** How long a draft waits for its step-up. */
export const DRAFT_LIFE_MS = 60 * 60 * 1000;
/** The claimed ids, each with the time its claim ends: `{ [id]: end }`. */
export const CLAIMS_KEY = 'drafts:claimed';

/** A draft's fields by name; a name may be missing from a draft that was kept by another version of the view. */
export type DraftFields = Partial<Record<string, string>>;

interface Kept {
  id: string;
  sub: string;
  at: number;
  fields: DraftFields;
}

/** Keeps `fields` under `key` in this tab, as `sub`'s, from now on. */
export function keepDraft(key: string, sub: string, fields: Record<string, string>): void {
  const kept: Kept = { id: crypto.randomUUID(), sub, at: Date.now(), fields };
  sessionStorage.setItem(key, JSON.stringify(kept));
}

/** Forgets the draft under `key`, e.g. when the session is signed out. */
export const dropDraft = (key: string): void => sessionStorage.removeItem(key);

/**
 * The fields of the draft under `key`, taken out of storage and claimed, for `sub` to send once. Undefined,
 * the draft gone too, when there is none, it is someone else's or not one, its hour is over, or another
 * tab has claimed it.
 */
export function takeDraft(key: string, sub: string): DraftFields | undefined {
  const raw = sessionStorage.getItem(key);
  dropDraft(key);
  const kept = raw === null ? undefined : parse(raw);
  const now = Date.now();
  if (!kept || kept.sub !== sub || !(kept.at <= now && now - kept.at < DRAFT_LIFE_MS)) return undefined;
  return claim(kept.id, kept.at + DRAFT_LIFE_MS, now) ? kept.fields : undefined;
}

/** Claims `id` until `end`; false when it is claimed already. Ended claims are dropped on the way. */
function claim(id: string, end: number, now: number): boolean {
  const claims = liveClaims(now);
  if (Object.hasOwn(claims, id)) return false;
  claims[id] = end;
  localStorage.setItem(CLAIMS_KEY, JSON.stringify(claims));
  return true;
}

function liveClaims(now: number): Record<string, number> {
  const live: Record<string, number> = {};
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(CLAIMS_KEY) ?? '{}');
    if (isRecord(stored)) {
      for (const [id, end] of Object.entries(stored)) if (typeof end === 'number' && end > now) live[id] = end;
    }
  } catch {
    // Not JSON: no claim is live, and the next claim writes the record afresh.
  }
  return live;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A kept draft, or undefined when `raw` is not one (hand-edited storage, another version's record). */
function parse(raw: string): Kept | undefined {
  try {
    const { id, sub, at, fields }: Record<string, unknown> = JSON.parse(raw);
    const valid =
      typeof id === 'string' &&
      id.length <= 64 &&
      typeof sub === 'string' &&
      Number.isFinite(at) &&
      isRecord(fields) &&
      Object.values(fields).every((value) => typeof value === 'string');
    return valid ? { id, sub, at: at as number, fields: fields as DraftFields } : undefined;
  } catch {
    return undefined;
  }
}

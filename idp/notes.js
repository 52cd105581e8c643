// The demo API's per-user notes: in memory, one store per provider instance,
// every demo user starting with two notes. Ids are per user ("n1", "n2", ...).
import { DEMO_USERS } from './users.js';

export const LIMITS = Object.freeze({ title: 100, body: 1000, notesPerUser: 50, requestBytes: 16 * 1024 });

/**
 * @typedef {{ id: string, title: string, body: string, createdAt: string }} Note
 */

/** @param {string} name */
const seedNotes = (name) => [
  { title: 'Welcome', body: `Hello ${name}, these notes live in the demo API's memory until it stops.` },
  { title: 'Try it', body: 'Add a note from the app; another user cannot see it.' },
];

export function createNotesStore() {
  /** @type {Map<string, Note[]>} user sub -> notes in creation order */
  const notes = new Map();
  const startedAt = new Date().toISOString();
  for (const user of DEMO_USERS) {
    notes.set(
      user.sub,
      seedNotes(user.name).map((note, i) => ({ id: `n${i + 1}`, ...note, createdAt: startedAt })),
    );
  }

  return {
    /** @param {string} sub */
    list: (sub) => (notes.get(sub) ?? []).map(({ id, title }) => ({ id, title })),

    /** @param {string} sub @param {string} id */
    get: (sub, id) => notes.get(sub)?.find((note) => note.id === id),

    /**
     * @param {string} sub
     * @param {{ title: string, body: string }} input already validated
     * @returns {Note | undefined} undefined when the user has reached the limit
     */
    add(sub, { title, body }) {
      const own = notes.get(sub) ?? [];
      if (own.length >= LIMITS.notesPerUser) return undefined;
      notes.set(sub, own);
      // Ids are never reused, since notes cannot be deleted: the count gives the next one.
      const note = { id: `n${own.length + 1}`, title, body, createdAt: new Date().toISOString() };
      own.push(note);
      return note;
    },
  };
}

/**
 * Checks the fields of a new note.
 * @param {FormData} form
 * @returns {{ title: string, body: string } | { error: string }}
 */
export function validateNote(form) {
  const title = form.get('title');
  const body = form.get('body') ?? '';
  if (typeof title !== 'string' || typeof body !== 'string') return { error: 'title and body must be text fields' };
  const trimmed = title.trim();
  const length = (/** @type {string} */ text) => [...text].length;
  if (length(trimmed) < 1 || length(trimmed) > LIMITS.title) return { error: `title must be 1 to ${LIMITS.title} characters` };
  if (length(body) > LIMITS.body) return { error: `body must be at most ${LIMITS.body} characters` };
  return { title: trimmed, body };
}

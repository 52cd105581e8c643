// Demo accounts of the local identity provider. Passwords are public on purpose
// (printed at start-up and listed in the README): this is a development server.
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * @typedef {object} DemoUser
 * @property {string} sub stable, opaque subject identifier (never the username)
 * @property {string} username
 * @property {string} password
 * @property {string} name
 * @property {string} email
 */

/** @type {readonly DemoUser[]} */
export const DEMO_USERS = Object.freeze(
  [
    { sub: 'u-alice-7f3a', username: 'alice', password: 'wonderland', name: 'Alice Liddell', email: 'alice@example.test' },
    { sub: 'u-bob-2c9e', username: 'bob', password: 'builder', name: 'Bob Builder', email: 'bob@example.test' },
  ].map((user) => Object.freeze(user)),
);

/** @param {string} value */
const digest = (value) => createHash('sha256').update(value).digest();

/**
 * Checks a username/password pair. Both the user lookup and the password
 * comparison run over every account with a constant-time compare, so timing
 * does not reveal which usernames exist.
 * @param {unknown} username
 * @param {unknown} password
 * @returns {DemoUser | undefined}
 */
export function verifyPassword(username, password) {
  if (typeof username !== 'string' || typeof password !== 'string') return undefined;
  const name = digest(username.trim().toLowerCase());
  const secret = digest(password);
  let match;
  for (const user of DEMO_USERS) {
    const nameOk = timingSafeEqual(name, digest(user.username));
    const passwordOk = timingSafeEqual(secret, digest(user.password));
    if (nameOk && passwordOk) match = user;
  }
  return match;
}

/** @param {string | undefined} sub */
export function findUserBySub(sub) {
  return DEMO_USERS.find((user) => user.sub === sub);
}

/**
 * oidc-provider's findAccount hook. The provider filters the returned claims
 * by the granted scopes (profile -> name, preferred_username; email -> email).
 * @param {unknown} _ctx
 * @param {string} sub
 */
export async function findAccount(_ctx, sub) {
  const user = findUserBySub(sub);
  if (!user) return undefined;
  return {
    accountId: user.sub,
    async claims() {
      return {
        sub: user.sub,
        name: user.name,
        preferred_username: user.username,
        email: user.email,
      };
    },
  };
}

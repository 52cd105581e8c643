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
 * @typedef {object} UserDirectory
 * @property {readonly DemoUser[]} users
 * @property {(username: unknown, password: unknown) => DemoUser | undefined} verifyPassword
 * @property {(sub: string | undefined) => DemoUser | undefined} findUserBySub
 * @property {(ctx: unknown, sub: string) => Promise<import('oidc-provider').Account | undefined>} findAccount
 */

/**
 * The accounts of one provider: the demo users plus `extra` ones a test brings (e.g. a name with
 * markup in it), so test-only accounts never appear in the demo table.
 * @param {readonly DemoUser[]} [extra]
 * @returns {UserDirectory}
 */
export function createUserDirectory(extra = []) {
  const fields = /** @type {const} */ (['sub', 'username', 'password', 'name', 'email']);
  for (const user of extra) {
    if (!fields.every((field) => typeof user?.[field] === 'string' && user[field])) {
      throw new TypeError(`createUserDirectory: every user needs ${fields.join(', ')}`);
    }
    if (DEMO_USERS.some((demo) => demo.sub === user.sub || demo.username === user.username.toLowerCase())) {
      throw new TypeError(`createUserDirectory: ${user.username} clashes with a demo user`);
    }
  }
  const users = Object.freeze([...DEMO_USERS, ...extra.map((user) => Object.freeze({ ...user }))]);
  /** @param {string | undefined} sub */
  const findUserBySub = (sub) => users.find((user) => user.sub === sub);
  return {
    users,
    findUserBySub,
    /**
     * Checks a username/password pair. Both the user lookup and the password
     * comparison run over every account with a constant-time compare, so timing
     * does not reveal which usernames exist.
     */
    verifyPassword(username, password) {
      if (typeof username !== 'string' || typeof password !== 'string') return undefined;
      const name = digest(username.trim().toLowerCase());
      const secret = digest(password);
      let match;
      for (const user of users) {
        const nameOk = timingSafeEqual(name, digest(user.username));
        const passwordOk = timingSafeEqual(secret, digest(user.password));
        if (nameOk && passwordOk) match = user;
      }
      return match;
    },
    /**
     * oidc-provider's findAccount hook. The provider filters the returned claims
     * by the granted scopes (profile -> name, preferred_username; email -> email).
     */
    async findAccount(_ctx, sub) {
      const user = findUserBySub(sub);
      if (!user) return undefined;
      return {
        accountId: user.sub,
        async claims() {
          return { sub: user.sub, name: user.name, preferred_username: user.username, email: user.email };
        },
      };
    },
  };
}

/** The demo users alone. */
export const { verifyPassword, findUserBySub, findAccount } = createUserDirectory();

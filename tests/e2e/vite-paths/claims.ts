/** The claims the pages show (the provider's userinfo answer). */
export type Claims = {
  sub: string;
  name?: string;
  email?: string;
  preferred_username?: string;
};

export const HSTS_MAX_AGE: number;
export interface HeaderOptions {
  /** Loosens exactly what Vite's dev server needs: injected <style> tags and its HMR websocket. */
  dev?: boolean;
  /** The origin the app is served from; an https one (not loopback) gets `Strict-Transport-Security`. */
  appOrigin?: string;
  /** Adds `includeSubDomains` to that header; only with an https `appOrigin`. */
  hsts?: { includeSubDomains?: boolean };
}
export function connectOrigins(config: Record<string, unknown>): string[];
export function strictTransportSecurity(
  appOrigin: string | undefined,
  options?: { includeSubDomains?: boolean },
): string | undefined;
export function securityHeaders(config: Record<string, unknown>, options?: HeaderOptions): Record<string, string>;

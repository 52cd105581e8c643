export function connectOrigins(config: Record<string, unknown>): string[];
export function securityHeaders(config: Record<string, unknown>, options?: { dev?: boolean }): Record<string, string>;

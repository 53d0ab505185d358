// The push client's wire and its settings: AppSync Events' subprotocols, the backoff, the errors,
// a token's expiry — pure, no runtime import (src/push.ts's only runtime import; both are bundled
// into web/push.js).
import type { FreshToken } from './push-types.ts';

/** An answer of the API other than 2xx/304 (its envelope's `code`, when there is one). */
export class PushHttpError extends Error {
  readonly status: number;
  readonly code: string | null;
  constructor(status: number, code: string | null, url: string) {
    super(`${status}${code ? ` ${code}` : ''} from ${url}`);
    this.name = 'PushHttpError';
    this.status = status;
    this.code = code;
  }
}

/** The channel refused us (`connection_error`, `subscribe_error`) or the token ran out. */
export class PushRefusedError extends Error {
  readonly kind: string;
  constructor(kind: string, message: string) {
    super(`${kind}: ${message}`);
    this.name = 'PushRefusedError';
    this.kind = kind;
  }
}

export const PUSH_PROTOCOL = 'aws-appsync-event-ws';
/** No table message for this long → the feed is polled (a publish lost at a quiet table). */
export const QUIET_POLL_MS = 30_000;
/** The operator's page is asked for a fresh token this long before the token's `exp`. */
export const TOKEN_RENEW_BEFORE_MS = 60_000;
/** A reconnect resumes from the feed unless it is more than this many events behind. */
export const RESUME_MAX_EVENTS = 100;
/** No push URL configured: the feed is polled this often instead. */
export const POLL_ONLY_MS = 2_000;
/** From the socket's creation to `connection_ack`: longer → closed, reconnected. */
export const CONNECT_TIMEOUT_MS = 30_000;
/** Reconnect delay of the n-th attempt (from 0): 500 ms · 2^n, capped at 30 s, drawn from [d/2, d]. */
export function pushBackoffMs(attempt: number, random: () => number = Math.random): number {
  const d = Math.min(30_000, 500 * 2 ** Math.min(attempt, 16));
  return Math.round(d / 2 + (random() * d) / 2);
}

/** `header-<base64url of {host, Authorization}>` (no padding): the socket's credentials. */
export function headerProtocol(pushUrl: string, authorization: string): string {
  const host = new URL(pushUrl).host.replace('appsync-realtime-api', 'appsync-api');
  const json = JSON.stringify({ host, Authorization: authorization });
  const bytes = new TextEncoder().encode(json);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return 'header-' + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A fresh token's expiry (Unix s): given, or the `exp` claim a `bpt1.` token carries, else null. */
export function tokenExpiry(fresh: FreshToken): number | null {
  if (typeof fresh !== 'string') {
    if (fresh.expiresAt !== undefined) return fresh.expiresAt;
    if (fresh.expires_at !== undefined) return Math.floor(Date.parse(fresh.expires_at) / 1000);
    return tokenExpiry(fresh.token);
  }
  const part = fresh.startsWith('bpt1.') ? fresh.split('.')[1] : undefined;
  if (!part) return null;
  try {
    const claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp : null;
  } catch {
    return null;
  }
}

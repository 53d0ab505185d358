// The push client's wire and its settings: AppSync Events' subprotocols, the API's reads, the
// backoff, the errors, a token's expiry — pure, no runtime import (src/push.ts's only runtime
// import; both are bundled into web/push.js).
import type { FreshToken, PushClock, PushFetch } from './push-types.ts';

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

/** The ack's `connectionTimeoutMs` when it names none (AppSync's default). */
export const DEFAULT_TIMEOUT_MS = 300_000;
/** Chat message ids remembered to tell a repeat. */
export const CHAT_SEEN_MAX = 1_000;
/** Events whose person's balance changed (an operator report): the own one re-reads the state. */
export const OWN_BALANCE_EVENTS = new Set(['seat_updated', 'banker_updated', 'spectator_updated']);
/** A state read older than the events applied (a stale answer) is read again once, this much later
 * (a replica catches up within a second: the own balance it was read for then shows). */
export const STALE_STATE_RETRY_MS = 1_000;
/** The clock of the page (or of Node): `Date.now` and the global timers. */
export const systemClock: PushClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof globalThis.setTimeout>),
};

/** The end of the subscription, never retried: refused by the channel, or the API's 401/403/404. */
export function isFinal(err: unknown): boolean {
  if (err instanceof PushRefusedError) return true;
  return err instanceof PushHttpError && [401, 403, 404].includes(err.status);
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

/** An API answer: 304 (body null, the etag sent) or 2xx with its body and ETag. */
export interface HttpAnswer<T> {
  status: number;
  body: T | null;
  etag: string | null;
}

/** `GET url` with the token (and `If-None-Match: etag`); any other status throws PushHttpError
 * (with the envelope's code, when there is one). */
export async function httpGet<T>(doFetch: PushFetch, url: string, token: string, etag?: string): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (etag) headers['If-None-Match'] = etag;
  const r = await doFetch(url, { headers });
  if (r.status === 304) return { status: 304, body: null, etag: etag ?? null };
  if (!r.ok) {
    let code: string | null = null;
    try {
      code = ((await r.json()) as { error?: { code?: string } }).error?.code ?? null;
    } catch {
      /* not the envelope */
    }
    throw new PushHttpError(r.status, code, url);
  }
  return { status: r.status, body: (await r.json()) as T, etag: r.headers.get('etag') };
}

// Idempotency-Key and retries, as docs/api.md "Idempotency and retries" asks: one key per logical
// request, made before its first attempt and sent again on every retry; a retry on a network
// error, a timeout, or an answer that may succeed later (isRetryable), after an exponential
// backoff with a cap, honouring Retry-After; never on anything else.
//
// It is a fetch function (Request in, Response out), handed to openapi-fetch as its `fetch`:
// openapi-fetch calls it once per API call, so a call is the logical request.
import { BaccaratNetworkError, isErrorEnvelope, isRetryable, parseJson } from './errors.ts';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Methods that change nothing: sent without a key, retried all the same. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface RetryOptions {
  /** Attempts in all, the first one included (default 5; 1 = no retry). */
  maxAttempts?: number;
  /** The first backoff (default 100 ms); it doubles with each retry… */
  baseDelayMs?: number;
  /** …up to this cap (default 5,000 ms). */
  maxDelayMs?: number;
  /** Draw each backoff from [d/2, d] instead of d (default true: clients retrying together
   * spread out). */
  jitter?: boolean;
  /** A Retry-After (header, or the envelope's `details.retry_after_seconds`) longer than this
   * (default 60,000 ms) is not waited for: the error goes back to the caller. */
  maxRetryAfterMs?: number;
  /** One attempt's time limit (default 30,000 ms); running out counts as a network error. */
  timeoutMs?: number;
  /** Makes a new Idempotency-Key (default crypto.randomUUID). */
  newKey?: () => string;
  /** Told of every retry before its pause (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** Waits (default setTimeout; tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** How long until the next one. */
  delayMs: number;
  idempotencyKey: string | null;
  /** The failed answer's status and envelope code, or null after a network error. */
  status: number | null;
  code: string | null;
  /** The network error, if that is what failed. */
  error: unknown;
}

export type FetchFunction = (input: Request) => Promise<Response>;

const DEFAULTS = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  jitter: true,
  maxRetryAfterMs: 60_000,
  timeoutMs: 30_000,
  newKey: (): string => crypto.randomUUID(),
  onRetry: (): void => {},
  sleep: (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms)),
} satisfies Required<RetryOptions>;

/** The backoff before retry `attempt + 1`: base · 2^(attempt−1), capped, optionally jittered. */
export function backoffMs(attempt: number, options: RetryOptions = {}, random = Math.random): number {
  const { baseDelayMs, maxDelayMs, jitter } = { ...DEFAULTS, ...options };
  const capped = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return jitter ? capped / 2 + (random() * capped) / 2 : capped;
}

/** Retry-After in ms: the header (seconds or an HTTP date), else the envelope's
 * `details.retry_after_seconds`; null when neither says. */
export function retryAfterMs(headers: Headers, body: unknown, now = Date.now()): number | null {
  const header = headers.get('retry-after')?.trim();
  if (header) {
    if (/^\d+$/.test(header)) return Number(header) * 1000;
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  if (isErrorEnvelope(body)) {
    const seconds = body.error.details['retry_after_seconds'];
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  }
  return null;
}

/** A fetch that adds an Idempotency-Key to every non-GET request without one and retries as
 * described above. It resolves to the last answer (an error answer too: the caller turns it into
 * a BaccaratApiError) and rejects with a BaccaratNetworkError when no attempt got an answer, or
 * with the caller's own abort. */
export function retryingFetch(options: RetryOptions & { fetch?: FetchFunction } = {}): FetchFunction {
  const o = { ...DEFAULTS, ...definedOnly(options) };
  const send: FetchFunction = options.fetch ?? ((request) => globalThis.fetch(request));
  if (!Number.isInteger(o.maxAttempts) || o.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, not ${o.maxAttempts}`);
  }
  return async (input) => {
    const method = input.method.toUpperCase();
    const headers = new Headers(input.headers);
    let key = headers.get(IDEMPOTENCY_KEY_HEADER);
    if (!SAFE_METHODS.has(method) && !key) {
      key = o.newKey();
      headers.set(IDEMPOTENCY_KEY_HEADER, key);
    }
    // read once: the same bytes go out on every attempt
    const body = SAFE_METHODS.has(method) ? null : await input.arrayBuffer();
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= o.maxAttempts;
      const request = new Request(input.url, {
        method,
        headers,
        body,
        redirect: input.redirect,
        signal: AbortSignal.any([input.signal, AbortSignal.timeout(o.timeoutMs)]),
      });
      let response: Response;
      try {
        response = await send(request);
      } catch (error) {
        if (input.signal.aborted) throw error; // the caller gave up: no retry
        if (last) throw new BaccaratNetworkError(method, input.url, attempt, error);
        await pause(attempt, backoffMs(attempt, o), null, null, error);
        continue;
      }
      if (response.status < 400) return response;
      // an error answer: read it to decide, hand on an unread copy
      const text = await response.text();
      const parsed = parseJson(text);
      const again = copyOf(response, text);
      if (last || !isRetryable(response.status, parsed)) return again;
      const wait = retryAfterMs(response.headers, parsed);
      if (wait !== null && wait > o.maxRetryAfterMs) return again;
      const code = isErrorEnvelope(parsed) ? parsed.error.code : null;
      await pause(attempt, Math.max(backoffMs(attempt, o), wait ?? 0), response.status, code, null);
    }

    async function pause(
      attempt: number,
      delayMs: number,
      status: number | null,
      code: string | null,
      error: unknown,
    ): Promise<void> {
      o.onRetry({ method, url: input.url, attempt, delayMs, idempotencyKey: key, status, code, error });
      await o.sleep(delayMs);
    }
  };
}

/** The answer again, body unread, with its URL (a new Response has none). */
function copyOf(response: Response, text: string): Response {
  const copy = new Response(text, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

/** The options given, without their undefined entries (which would hide the defaults). */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

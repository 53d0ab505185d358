// Typed errors: the API's one error envelope {"error": {code, message, retryable, details,
// request_id}} (docs/api.md, "Errors") as a BaccaratApiError, and a request that never got an
// answer (after its retries) as a BaccaratNetworkError.
import type { components } from './generated/openapi.ts';

export type ErrorBody = components['schemas']['ErrorBody'];
export type ErrorEnvelope = components['schemas']['ErrorOut'];

/** Statuses retried even when the body is not our envelope (API Gateway's own 429, 502, 503, 504
 * answers: throttling, a gateway or integration timeout after which the effect may or may not
 * have happened — the same Idempotency-Key makes the retry safe). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error: unknown = body.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'retryable' in error &&
    typeof error.retryable === 'boolean'
  );
}

/** Whether an error answer may succeed when sent again with the same Idempotency-Key: the
 * envelope says `retryable` (409 concurrent_update, 409 idempotency_in_progress, 429
 * rate_limited, 503 unavailable), or the status is one of RETRYABLE_STATUSES. */
export function isRetryable(status: number, body: unknown): boolean {
  if (RETRYABLE_STATUSES.has(status)) return true;
  if (!isErrorEnvelope(body)) return false;
  return body.error.retryable || body.error.code === 'idempotency_in_progress';
}

/** An error answer of the API. `code` is the envelope's stable code (program against it), or null
 * when the answer was not the envelope (API Gateway's `{"message": "Unauthorized"}`, a proxy's
 * HTML page); `body` is what was answered, parsed when it was JSON. */
export class BaccaratApiError extends Error {
  override readonly name = 'BaccaratApiError';
  readonly status: number;
  readonly code: string | null;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly requestId: string | null;
  readonly url: string;
  readonly body: unknown;

  constructor(status: number, body: unknown, url: string, requestIdHeader: string | null = null) {
    const envelope = isErrorEnvelope(body) ? body.error : null;
    const text =
      envelope?.message ??
      (typeof body === 'object' && body !== null && 'message' in body
        ? String(body.message)
        : typeof body === 'string'
          ? body.slice(0, 200)
          : '');
    const code = envelope?.code ?? null;
    super(`HTTP ${status}${code ? ` ${code}` : ''}: ${text || '(no message)'} (${url})`);
    this.status = status;
    this.code = code;
    this.retryable = isRetryable(status, body);
    this.details = envelope?.details ?? {};
    this.requestId = envelope?.request_id ?? requestIdHeader;
    this.url = url;
    this.body = body;
  }

  /** The error of a failed answer (its body read as text, then JSON when it parses). */
  static async fromResponse(response: Response): Promise<BaccaratApiError> {
    const text = await response.text();
    return new BaccaratApiError(response.status, parseJson(text), response.url, requestIdOf(response));
  }
}

/** A request that got no answer: every attempt failed on the network or timed out. */
export class BaccaratNetworkError extends Error {
  override readonly name = 'BaccaratNetworkError';
  readonly method: string;
  readonly url: string;
  readonly attempts: number;

  constructor(method: string, url: string, attempts: number, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${url}: no answer after ${attempts} attempt${attempts === 1 ? '' : 's'} (${why})`, {
      cause,
    });
    this.method = method;
    this.url = url;
    this.attempts = attempts;
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function requestIdOf(response: Response): string | null {
  return response.headers.get('x-request-id');
}

// Webhook signatures. Every delivery carries
//
//     Baccarat-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
//
// where the HMAC key is the signing secret exactly as `PUT /v1/webhook` answered it (its UTF-8
// bytes) and the message is the decimal timestamp, a dot and the request body's bytes as sent.
// Check it on the RAW body (before any JSON parsing: a re-serialised body has other bytes), reject
// a timestamp outside the tolerance (a replayed old delivery), compare in constant time. Several
// v1= entries are allowed (any one matching is enough: a secret being rotated).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Baccarat-Signature';
/** Five minutes either way, unless told otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookSignatureFailure =
  | 'missing_header' // no header, or an empty one
  | 'malformed_header' // not t=<digits>,v1=<64 hex digits>[,v1=…]
  | 'timestamp_outside_tolerance' // too old (or from the future): maybe a replay
  | 'signature_mismatch'; // no v1 matches: another secret, or a changed body or timestamp

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  readonly reason: WebhookSignatureFailure;

  constructor(reason: WebhookSignatureFailure, message: string) {
    super(`webhook signature: ${message}`);
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** How far the header's `t` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** "Now" in unix seconds (default the clock; tests pass their own). */
  now?: number;
}

type Bytes = string | Uint8Array;

const toBytes = (value: Bytes): Buffer =>
  typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/** The v1 signature (hex) of `rawBody` sent at `timestamp` (unix seconds). */
export function webhookSignature(secret: Bytes, timestamp: number, rawBody: Bytes): string {
  return createHmac('sha256', toBytes(secret))
    .update(`${timestamp}.`, 'utf8')
    .update(toBytes(rawBody))
    .digest('hex');
}

/** The whole header value a sender puts on a delivery (for a receiver's own tests). */
export function signWebhookPayload(secret: Bytes, rawBody: Bytes, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${webhookSignature(secret, timestamp, rawBody)}`;
}

/** Checks a delivery's `Baccarat-Signature` header against its raw body. Returns the signed
 * timestamp; throws a WebhookSignatureError saying why when the delivery must be refused. */
export function verifyWebhookSignature(
  secret: Bytes,
  header: string | null | undefined,
  rawBody: Bytes,
  options: VerifyWebhookOptions = {},
): { timestamp: number } {
  if (!header || !header.trim()) {
    throw new WebhookSignatureError('missing_header', `no ${SIGNATURE_HEADER} header`);
  }
  let timestamp: number | null = null;
  const candidates: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) throw new WebhookSignatureError('malformed_header', `"${part.trim()}" is not name=value`);
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      if (timestamp !== null || !/^\d{1,12}$/.test(value)) {
        throw new WebhookSignatureError('malformed_header', 'it needs exactly one t=<unix seconds>');
      }
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) {
        throw new WebhookSignatureError('malformed_header', 'a v1 signature is 64 hex digits');
      }
      candidates.push(Buffer.from(value, 'hex'));
    } // other schemes (a future v2) are skipped
  }
  if (timestamp === null) throw new WebhookSignatureError('malformed_header', 'no t=<unix seconds>');
  if (!candidates.length) throw new WebhookSignatureError('malformed_header', 'no v1=<signature>');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookSignatureError(
      'timestamp_outside_tolerance',
      `signed at ${timestamp}, ${Math.abs(now - timestamp)} s from now (tolerance ${tolerance} s)`,
    );
  }
  const expected = Buffer.from(webhookSignature(secret, timestamp, rawBody), 'hex');
  // every candidate is compared (32 bytes each, constant time): no early exit on a match
  let matched = false;
  for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
  if (!matched) throw new WebhookSignatureError('signature_mismatch', 'no v1 signature matches the body');
  return { timestamp };
}

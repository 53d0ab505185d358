// @baccarat/client: the generated types of docs/openapi.json, an openapi-fetch client with
// Idempotency-Key retries, typed errors, and webhook signature checks. See README.md.
export { type BaccaratClient, type BaccaratClientOptions, createBaccaratClient, type Schema, unwrap } from './client.ts';
export {
  BaccaratApiError,
  BaccaratNetworkError,
  type ErrorBody,
  type ErrorEnvelope,
  isErrorEnvelope,
  isRetryable,
  RETRYABLE_STATUSES,
} from './errors.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export {
  backoffMs,
  type FetchFunction,
  IDEMPOTENCY_KEY_HEADER,
  type RetryEvent,
  type RetryOptions,
  retryAfterMs,
  retryingFetch,
} from './retry.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signWebhookPayload,
  type VerifyWebhookOptions,
  verifyWebhookSignature,
  WebhookSignatureError,
  type WebhookSignatureFailure,
  webhookSignature,
} from './webhook.ts';

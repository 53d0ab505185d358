// @baccarat/client: the generated types of docs/openapi.json, an openapi-fetch client with
// Idempotency-Key retries, typed errors, webhook signature checks, and the table push client
// (subscribeTable; web/push.js is generated from it). See README.md.
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
export {
  type FreshToken,
  headerProtocol,
  POLL_ONLY_MS,
  PUSH_PROTOCOL,
  type PushChat,
  type PushChatLine,
  type PushClock,
  type PushEvents,
  type PushFetch,
  PushHttpError,
  type PushMessage,
  PushRefusedError,
  type PushRotate,
  type PushSocket,
  type PushSocketConstructor,
  type PushStatus,
  pushBackoffMs,
  QUIET_POLL_MS,
  RESUME_MAX_EVENTS,
  type SubscribeTableOptions,
  subscribeTable,
  type TableEvent,
  type TableState,
  type TableSubscription,
  TOKEN_RENEW_BEFORE_MS,
  tokenExpiry,
} from './push.ts';
export {
  expiresAtSeconds,
  type LobbyTokenOut,
  mintLobbyToken,
  mintTableToken,
  revokePersonTokens,
  revokeToken,
  type TokenOut,
  type TokenRequest,
} from './tokens.ts';

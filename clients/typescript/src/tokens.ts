// Player and lobby tokens (docs/api.md "Player tokens"), typed: what an operator's server calls to
// give a browser its only credential, and to take it back. Each is one route of the generated
// client (so retries and Idempotency-Key are retry.ts's), answered as its schema or thrown as a
// BaccaratApiError.
import { type BaccaratClient, type Schema, unwrap } from './client.ts';

export type TokenRequest = Schema<'TokenRequest'>;
export type TokenOut = Schema<'TokenOut'>;
export type LobbyTokenOut = Schema<'LobbyTokenOut'>;

/** A player token for one person at one table (`POST /v1/tables/{table_id}/tokens`). */
export function mintTableToken(api: BaccaratClient, tableId: string, request: TokenRequest): Promise<TokenOut> {
  return unwrap(api.POST('/v1/tables/{table_id}/tokens', { params: { path: { table_id: tableId } }, body: request }));
}

/** A lobby token: reads the operator's table list, nothing about people (`POST /v1/lobby-tokens`). */
export function mintLobbyToken(api: BaccaratClient, ttlSeconds?: number): Promise<LobbyTokenOut> {
  return unwrap(api.POST('/v1/lobby-tokens', { body: ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds } }));
}

/** Revoke one token: refused from the very next request, its channel rotated (idempotent). */
export async function revokeToken(api: BaccaratClient, tableId: string, jti: string): Promise<void> {
  await unwrap(api.DELETE('/v1/tables/{table_id}/tokens/{jti}', { params: { path: { table_id: tableId, jti } } }));
}

/** Revoke every token of a person minted until now at the table (idempotent). */
export async function revokePersonTokens(api: BaccaratClient, tableId: string, bettorId: string): Promise<void> {
  await unwrap(
    api.DELETE('/v1/tables/{table_id}/tokens', {
      params: { path: { table_id: tableId }, query: { bettor_id: bettorId } },
    }),
  );
}

/** A token's `expires_at` (ISO 8601) as Unix seconds: `subscribeTable`'s `expiresAt`. */
export function expiresAtSeconds(token: { expires_at: string }): number {
  return Math.floor(Date.parse(token.expires_at) / 1000);
}

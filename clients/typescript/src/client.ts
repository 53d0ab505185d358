// The client: openapi-fetch over the generated paths, with the operator key and the retrying fetch
// of retry.ts; `unwrap` turns an answer into its typed data or throws the typed error.
import createClient, { type Client } from 'openapi-fetch';

import { BaccaratApiError, requestIdOf } from './errors.ts';
import type { components, paths } from './generated/openapi.ts';
import { type FetchFunction, type RetryOptions, retryingFetch } from './retry.ts';

export type BaccaratClient = Client<paths>;
/** A schema of docs/openapi.json by name: `Schema<'SettlementOut'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface BaccaratClientOptions {
  /** The API's base URL: `make run` prints it (http://127.0.0.1:8000), or the stack's ApiUrl. */
  baseUrl: string;
  /** The operator key (sent as `Authorization: Bearer …`); omit it for the public routes only. */
  apiKey?: string;
  /** Backoff, attempts, timeouts: see RetryOptions. `{maxAttempts: 1}` turns retries off. */
  retry?: RetryOptions;
  /** The fetch underneath the retries (default globalThis.fetch). */
  fetch?: FetchFunction;
}

export function createBaccaratClient(options: BaccaratClientOptions): BaccaratClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['Authorization'] = `Bearer ${options.apiKey}`;
  const retry = { ...options.retry, ...(options.fetch ? { fetch: options.fetch } : {}) };
  return createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: retryingFetch(retry) });
}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer (typed by the route); a BaccaratApiError for an error
 * answer (a BaccaratNetworkError has already been thrown when there was none).
 *
 *     const table = await unwrap(api.POST('/v1/tables', { body: { … } }));
 */
export async function unwrap<A extends Answer>(answer: A | Promise<A>): Promise<NonNullable<A['data']>> {
  const { data, error, response } = await answer;
  if (!response.ok) throw new BaccaratApiError(response.status, error, response.url, requestIdOf(response));
  return data as NonNullable<A['data']>; // a route's success always has a JSON body
}

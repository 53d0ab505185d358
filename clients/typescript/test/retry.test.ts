// The client's retry layer against a scripted local HTTP server: what is retried (and with which
// Idempotency-Key), what is not, the backoff and its cap, Retry-After, timeouts, the typed errors.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';

import {
  BaccaratApiError,
  BaccaratNetworkError,
  backoffMs,
  createBaccaratClient,
  type RetryOptions,
  retryAfterMs,
  unwrap,
} from '../src/index.ts';

/** What the server answers next: an answer, a dropped connection, or no answer at all. */
type Step = { status: number; body: unknown; headers?: Record<string, string> } | 'drop' | 'hang';
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: string;
}

let script: Step[] = [];
let seen: Seen[] = [];
let baseUrl = '';
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers, body: Buffer.concat(chunks).toString() });
    const step = script.shift() ?? { status: 500, body: 'script exhausted' };
    if (step === 'drop') return void req.socket.destroy();
    if (step === 'hang') return; // never answers: the client's timeout must give up
    const data = JSON.stringify(step.body);
    res.writeHead(step.status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...step.headers });
    res.end(data);
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  script = [];
  seen = [];
});

const envelope = (code: string, retryable: boolean, details: Record<string, unknown> = {}) => ({
  error: { code, message: `${code} happened`, retryable, details, request_id: 'req-1' },
});
const ROUND = { round_id: 'tbl_aaaaaaaaaaaaaaaa_s1_r1', round_number: 1 };
const SHOE = { params: { path: { shoe_id: 'tbl_aaaaaaaaaaaaaaaa_s1' } }, body: { bets: [] } };

function client(retry: RetryOptions = {}) {
  const delays: number[] = [];
  const api = createBaccaratClient({
    baseUrl,
    apiKey: 'bk_test',
    retry: { jitter: false, sleep: async (ms) => void delays.push(ms), ...retry },
  });
  return { api, delays };
}

test('retryable answers are retried with the same key and body, after a doubling backoff', async () => {
  script = [
    { status: 503, body: envelope('unavailable', true) },
    { status: 409, body: envelope('concurrent_update', true) },
    { status: 409, body: envelope('idempotency_in_progress', true) },
    { status: 429, body: envelope('rate_limited', true, { retry_after_seconds: 2 }), headers: { 'retry-after': '2' } },
    { status: 201, body: ROUND },
  ];
  const { api, delays } = client();
  const round = await unwrap(api.POST('/v1/shoes/{shoe_id}/rounds', SHOE));
  assert.deepEqual(round, ROUND);
  assert.equal(seen.length, 5);
  const keys = seen.map((s) => s.headers['idempotency-key']);
  assert.match(keys[0] ?? '', /^[0-9a-f-]{36}$/);
  assert.ok(keys.every((k) => k === keys[0]), `one key for all attempts: ${keys.join(' ')}`);
  assert.ok(seen.every((s) => s.body === '{"bets":[]}' && s.headers['authorization'] === 'Bearer bk_test'));
  assert.deepEqual(delays, [100, 200, 400, 2000]); // the last one waits for Retry-After
});

test('every logical request has its own key; a key the caller gives is kept', async () => {
  script = [{ status: 201, body: ROUND }, { status: 201, body: ROUND }, { status: 503, body: envelope('unavailable', true) }, { status: 201, body: ROUND }];
  const { api } = client();
  await unwrap(api.POST('/v1/shoes/{shoe_id}/rounds', SHOE));
  await unwrap(api.POST('/v1/shoes/{shoe_id}/rounds', SHOE));
  const mine = { params: { ...SHOE.params, header: { 'Idempotency-Key': 'deal-7' } }, body: SHOE.body };
  await unwrap(api.POST('/v1/shoes/{shoe_id}/rounds', mine));
  const keys = seen.map((s) => s.headers['idempotency-key']);
  assert.notEqual(keys[0], keys[1]);
  assert.deepEqual(keys.slice(2), ['deal-7', 'deal-7']);
});

test('answers that will not succeed as they are are not retried, and throw the typed error', async () => {
  const cases: [number, string][] = [
    [422, 'insufficient_balance'],
    [409, 'shoe_ended'],
    [400, 'invalid_request'],
    [500, 'internal_error'],
    [422, 'idempotency_key_reused'],
  ];
  for (const [status, code] of cases) {
    script = [{ status, body: envelope(code, false, { bettor_id: 'alice' }) }, { status: 201, body: ROUND }];
    seen = [];
    const { api, delays } = client();
    const error = await unwrap(api.POST('/v1/shoes/{shoe_id}/rounds', SHOE)).then(
      () => assert.fail('no error'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof BaccaratApiError, String(error));
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    assert.equal(error.retryable, false);
    assert.deepEqual(error.details, { bettor_id: 'alice' });
    assert.equal(error.requestId, 'req-1');
    assert.match(error.message, new RegExp(`HTTP ${status} ${code}: ${code} happened`));
    assert.equal(seen.length, 1, `${code}: sent once`);
    assert.deepEqual(delays, []);
    script = [];
  }
});

test('a dropped connection is retried with the same key; no answer at all is a BaccaratNetworkError', async () => {
  script = ['drop', 'drop', { status: 201, body: ROUND }];
  const { api, delays } = client();
  assert.deepEqual(await unwrap(api.POST('/v1/shoes/{shoe_id}/rounds', SHOE)), ROUND);
  assert.equal(seen.length, 3);
  assert.equal(new Set(seen.map((s) => s.headers['idempotency-key'])).size, 1);
  assert.deepEqual(delays, [100, 200]);

  script = ['drop', 'drop', 'drop'];
  seen = [];
  const { api: api3 } = client({ maxAttempts: 3 });
  await assert.rejects(api3.POST('/v1/shoes/{shoe_id}/rounds', SHOE), (e: unknown) => {
    assert.ok(e instanceof BaccaratNetworkError);
    assert.equal(e.attempts, 3);
    assert.equal(e.method, 'POST');
    return true;
  });
  assert.equal(seen.length, 3);
});

test('an attempt that gets no answer in time is retried', async () => {
  script = ['hang', { status: 200, body: { tiers: [] } }];
  const { api } = client({ timeoutMs: 300 });
  assert.deepEqual(await unwrap(api.GET('/v1/tiers')), { tiers: [] });
  assert.equal(seen.length, 2);
  assert.equal(seen[0]?.headers['idempotency-key'], undefined); // a GET needs no key
});

test('retries stop after maxAttempts: the last answer is the error, still marked retryable', async () => {
  script = Array.from({ length: 4 }, () => ({ status: 503, body: envelope('unavailable', true) }));
  const { api, delays } = client({ maxAttempts: 4 });
  await assert.rejects(unwrap(api.POST('/v1/shoes/{shoe_id}/close', { params: SHOE.params })), (e: unknown) => {
    assert.ok(e instanceof BaccaratApiError);
    assert.equal(e.code, 'unavailable');
    assert.equal(e.retryable, true);
    return true;
  });
  assert.equal(seen.length, 4);
  assert.deepEqual(delays, [100, 200, 400]);
});

test('API Gateway answers without the envelope: 429/503 retried, 401 typed with code null', async () => {
  script = [
    { status: 429, body: { message: 'Too Many Requests' } },
    { status: 503, body: { message: 'Service Unavailable' } },
    { status: 401, body: { message: 'Unauthorized' } },
  ];
  const { api } = client();
  await assert.rejects(unwrap(api.GET('/v1/tiers')), (e: unknown) => {
    assert.ok(e instanceof BaccaratApiError);
    assert.equal(e.status, 401);
    assert.equal(e.code, null);
    assert.equal(e.retryable, false);
    assert.deepEqual(e.body, { message: 'Unauthorized' });
    assert.match(e.message, /HTTP 401: Unauthorized/);
    return true;
  });
  assert.equal(seen.length, 3);
});

test('a Retry-After longer than maxRetryAfterMs goes back to the caller at once', async () => {
  script = [{ status: 429, body: envelope('rate_limited', true), headers: { 'retry-after': '120' } }];
  const { api, delays } = client();
  await assert.rejects(unwrap(api.GET('/v1/tiers')), (e: unknown) => e instanceof BaccaratApiError && e.code === 'rate_limited');
  assert.equal(seen.length, 1);
  assert.deepEqual(delays, []);
});

test("the caller's own abort is not retried", async () => {
  script = ['hang', { status: 200, body: { tiers: [] } }];
  const { api } = client();
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(api.GET('/v1/tiers', { signal: controller.signal }), (e: unknown) => (e as Error).name === 'AbortError');
  assert.equal(seen.length, 1);
});

test('backoff doubles up to its cap; jitter stays within [d/2, d]; Retry-After parses', () => {
  const o = { baseDelayMs: 100, maxDelayMs: 1000, jitter: false };
  assert.deepEqual([1, 2, 3, 4, 5, 12].map((n) => backoffMs(n, o)), [100, 200, 400, 800, 1000, 1000]);
  for (const r of [0, 0.5, 0.999]) {
    const d = backoffMs(3, { ...o, jitter: true }, () => r);
    assert.ok(d >= 200 && d <= 400, String(d));
  }
  const now = Date.parse('2025-03-01T12:00:00Z');
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '3' }), null), 3000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Sat, 01 Mar 2025 12:00:05 GMT' }), null, now), 5000);
  assert.equal(retryAfterMs(new Headers(), envelope('rate_limited', true, { retry_after_seconds: 7 })), 7000);
  assert.equal(retryAfterMs(new Headers(), envelope('unavailable', true)), null);
  assert.throws(() => createBaccaratClient({ baseUrl, retry: { maxAttempts: 0 } }), RangeError);
});

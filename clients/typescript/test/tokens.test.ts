// The token calls (src/tokens.ts) against a scripted fetch: each is its route with its body, its
// answer typed, an error answer a BaccaratApiError; and the page's expiresAt from the answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  BaccaratApiError,
  createBaccaratClient,
  expiresAtSeconds,
  mintLobbyToken,
  mintTableToken,
  revokePersonTokens,
  revokeToken,
} from '../src/index.ts';

interface Call {
  method: string;
  path: string;
  body: unknown;
  auth: string | null;
}

function scripted(status: number, body: unknown) {
  const calls: Call[] = [];
  const api = createBaccaratClient({
    baseUrl: 'https://api.example',
    apiKey: 'bk_test',
    retry: { maxAttempts: 1 },
    fetch: async (request: Request) => {
      const text = await request.text();
      const u = new URL(request.url);
      calls.push({ method: request.method, path: u.pathname + u.search, body: text ? JSON.parse(text) : null, auth: request.headers.get('authorization') });
      return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    },
  });
  return { api, calls };
}

const TOKEN = {
  token: 'bpt1.x.y', jti: 'tk_aaaaaaaaaaaaaaaaaaaaaaaaaa', expires_at: '2026-12-05T16:00:00.000Z', role: 'seat',
  table_id: 'tbl_t', bettor_id: 'alice', push_url: 'wss://push.example/event/realtime', push_channel: '/tables/tbl_t/e1',
} as const;

test('mintTableToken posts the request to the table and answers the token with its channel', async () => {
  const { api, calls } = scripted(201, TOKEN);
  const minted = await mintTableToken(api, 'tbl_t', { bettor_id: 'alice', role: 'seat', ttl_seconds: 600 });
  assert.deepEqual(calls.map((c) => [c.method, c.path, c.body, c.auth]), [
    ['POST', '/v1/tables/tbl_t/tokens', { bettor_id: 'alice', role: 'seat', ttl_seconds: 600 }, 'Bearer bk_test'],
  ]);
  assert.equal(minted.push_channel, '/tables/tbl_t/e1');
  assert.equal(expiresAtSeconds(minted), Date.parse('2026-12-05T16:00:00Z') / 1000);
});

test('mintLobbyToken, revokeToken and revokePersonTokens are their routes', async () => {
  const lobby = scripted(201, { token: 'bpt1.l.m', jti: 'tk_b', expires_at: TOKEN.expires_at, role: 'lobby' });
  assert.equal((await mintLobbyToken(lobby.api, 900)).role, 'lobby');
  await mintLobbyToken(lobby.api);
  assert.deepEqual(lobby.calls.map((c) => [c.method, c.path, c.body]), [
    ['POST', '/v1/lobby-tokens', { ttl_seconds: 900 }],
    ['POST', '/v1/lobby-tokens', {}],
  ]);
  const revoke = scripted(204, null);
  await revokeToken(revoke.api, 'tbl_t', TOKEN.jti);
  await revokePersonTokens(revoke.api, 'tbl_t', 'alice');
  assert.deepEqual(revoke.calls.map((c) => [c.method, c.path]), [
    ['DELETE', `/v1/tables/tbl_t/tokens/${TOKEN.jti}`],
    ['DELETE', '/v1/tables/tbl_t/tokens?bettor_id=alice'],
  ]);
});

test('a refused mint is a BaccaratApiError with its code', async () => {
  const { api } = scripted(404, { error: { code: 'not_found', message: 'no such table', retryable: false, details: {} } });
  await assert.rejects(mintTableToken(api, 'tbl_x', { bettor_id: 'a', role: 'watcher' }), (e: unknown) => {
    assert.ok(e instanceof BaccaratApiError);
    assert.equal(e.code, 'not_found');
    return true;
  });
});

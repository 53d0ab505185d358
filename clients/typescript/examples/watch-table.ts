/**
 * A player's page following a table by push, as a casino frontend wires it: the operator's server
 * seats alice and mints her a player token (`mintTableToken`); her page — holding only that token
 * — subscribes to the table's push channel (`subscribeTable`, with `ws` in Node: the browser
 * passes its own WebSocket) and gets a snapshot, then every table event once, in seq order, and
 * the chat. Meanwhile the operator's server makes the table busy (watchers joining in bursts, a
 * chat line of alice's). With `--revoke` the operator then revokes her token: her channel ends
 * with `rotate`, the resubscription is refused and the page is told `closed`.
 *
 *     make run                                               # terminal 1: URL and key printed
 *     export BACCARAT_URL=http://127.0.0.1:8000 KEY=bk_...   # terminal 2
 *     cd clients/typescript && npx tsx examples/watch-table.ts [--actions 24] [--revoke] [--summary-json FILE]
 *
 * Exit status 0 when every event from the snapshot to the table's last arrived exactly once, in
 * order (and, with --revoke, the page was closed by the refusal), 1 otherwise, 2 on an API error.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import WebSocket from 'ws';

import {
  BaccaratApiError,
  createBaccaratClient,
  expiresAtSeconds,
  mintTableToken,
  type PushSocketConstructor,
  type PushStatus,
  revokeToken,
  subscribeTable,
  type TableEvent,
  unwrap,
} from '../src/index.ts';

const { values: args } = parseArgs({
  options: {
    actions: { type: 'string', default: '24' },
    revoke: { type: 'boolean', default: false },
    'summary-json': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});
const url = process.env['BACCARAT_URL'] ?? 'http://127.0.0.1:8000';
const key = process.env['KEY'] ?? '';
const log = (line: string): void => void (args.quiet || console.log(line));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function main(): Promise<number> {
  const operator = createBaccaratClient({ baseUrl: url, apiKey: key });
  const table = await unwrap(
    operator.POST('/v1/tables', { body: { profile: 'star-city', tier: 'star-city-fun', banking: 'house' } }),
  );
  const tableId = table.table_id;
  await unwrap(
    operator.PUT('/v1/tables/{table_id}/seats/{seat}', {
      params: { path: { table_id: tableId, seat: 1 } },
      body: { bettor_id: 'alice', balance: 50_000 },
    }),
  );

  // [mint]
  // the operator's server: a token for alice at this table, handed to her page
  const minted = await mintTableToken(operator, tableId, { bettor_id: 'alice', role: 'seat', ttl_seconds: 600 });
  // [/mint]

  const seen: number[] = [];
  const statuses: string[] = [];
  const chat: string[] = [];
  const rotated: number[] = [];
  let snapshotSeq: number | null = null;
  let closedDetail: string | null = null;

  // [subscribe]
  // her page: only the token (the browser passes its own WebSocket; Node, ws's)
  const sub = subscribeTable({
    api: url,
    tableId,
    token: minted.token,
    WebSocket: WebSocket as unknown as PushSocketConstructor,
    expiresAt: expiresAtSeconds(minted),
    onTokenExpiring: () => mintTableToken(operator, tableId, { bettor_id: 'alice', role: 'seat' }),
    onSnapshot: (state) => {
      snapshotSeq = state.seq; // draw the whole table from it
      log(`snapshot seq ${state.seq}, phase ${state.phase}, you ${JSON.stringify(state.you)}`);
    },
    onEvents: (events: TableEvent[]) => {
      for (const e of events) {
        seen.push(e.seq); // apply each to what is drawn
        if (e.type === 'push_rotated') rotated.push(e.seq);
      }
      log(`events ${events.map((e) => `${e.seq} ${e.type}`).join(', ')}`);
    },
    onChat: (message) => void chat.push(`${message.bettor_id}: ${message.text}`),
    onStatus: (status: PushStatus, detail?: string) => {
      statuses.push(detail ? `${status} ${detail}` : status);
      if (status === 'closed') closedDetail = detail ?? null;
      log(`status ${status}${detail ? ` (${detail})` : ''}`);
    },
    onError: (err) => log(`push: ${String(err)}`),
  });
  // [/subscribe]

  await until('live', () => statuses.includes('live'));
  const actions = Number(args.actions);
  const bursts = 4;
  for (let b = 0; b < bursts; b++) {
    const burst = [];
    for (let n = b; n < actions; n += bursts) {
      burst.push(unwrap(operator.PUT('/v1/tables/{table_id}/watchers/{bettor_id}', { params: { path: { table_id: tableId, bettor_id: `w${n}` } } })));
    }
    await Promise.all(burst);
    await sleep(30);
  }
  const line = await fetch(`${url}/v1/tables/${tableId}/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${minted.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'good luck 祝好運' }),
  });
  if (line.status !== 201) throw new Error(`chat answered ${line.status}`);
  const finalSeq = (await unwrap(operator.GET('/v1/tables/{table_id}/state', { params: { path: { table_id: tableId } } }))).seq;
  await until(`seq ${finalSeq}`, () => sub.lastSeq() >= finalSeq && chat.length > 0);

  if (args.revoke) {
    // [revoke]
    await revokeToken(operator, tableId, minted.jti); // her channel rotates; her page is closed
    // [/revoke]
    await until('closed', () => closedDetail !== null);
  } else {
    sub.close();
  }

  const unique = new Set(seen);
  const start = (snapshotSeq ?? 0) + 1;
  const expected = (sub.lastSeq() || finalSeq) - start + 1;
  const inOrder = seen.every((s, i) => s === start + i);
  const summary = {
    table_id: tableId,
    snapshot_seq: snapshotSeq,
    final_seq: finalSeq,
    last_seq: sub.lastSeq(),
    received: seen.length,
    duplicates: seen.length - unique.size,
    lost: expected - unique.size,
    in_order: inOrder,
    rotated,
    chat,
    statuses,
    closed: closedDetail,
  };
  if (args['summary-json']) writeFileSync(args['summary-json'], JSON.stringify(summary, null, 2));
  console.log(
    `received ${summary.received} events (seq ${start}…${summary.last_seq}), duplicates ${summary.duplicates}, lost ${summary.lost}, in order ${inOrder}; chat ${chat.length}; closed: ${closedDetail}`,
  );
  const ok = summary.duplicates === 0 && summary.lost === 0 && inOrder && (!args.revoke || closedDetail === 'subscribe_refused');
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof BaccaratApiError) {
      console.error(`watch-table: ${e.message}`);
      process.exit(2);
    }
    console.error(e);
    process.exit(2);
  },
);

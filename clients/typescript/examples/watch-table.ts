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
  type BaccaratClient,
  createBaccaratClient,
  expiresAtSeconds,
  mintTableToken,
  type PushSocketConstructor,
  type PushStatus,
  revokeToken,
  subscribeTable,
  type TableEvent,
  type TableSubscription,
  type TokenOut,
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
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** What one page was told. */
interface Page {
  who: string;
  sub: TableSubscription;
  seen: number[];
  statuses: string[];
  chat: string[];
  rotated: number[];
  snapshotSeq: number | null;
  closed: string | null;
}

function openPage(operator: BaccaratClient, tableId: string, who: string, minted: TokenOut): Page {
  const page = { who, seen: [], statuses: [], chat: [], rotated: [], snapshotSeq: null, closed: null } as Omit<Page, 'sub'>;
  const log = (line: string): void => void (args.quiet || console.log(`${who}: ${line}`));
  // [subscribe]
  // the page: only the token (the browser passes its own WebSocket; Node, ws's)
  const sub = subscribeTable({
    api: url,
    tableId,
    token: minted.token,
    pushUrl: minted.push_url,
    channel: minted.push_channel,
    WebSocket: WebSocket as unknown as PushSocketConstructor,
    expiresAt: expiresAtSeconds(minted),
    onTokenExpiring: () => mintTableToken(operator, tableId, { bettor_id: minted.bettor_id, role: minted.role }),
    onSnapshot: (state) => {
      page.snapshotSeq = state.seq; // draw the whole table from it
      log(`snapshot seq ${state.seq}, phase ${state.phase}, you ${JSON.stringify(state.you)}`);
    },
    onEvents: (events: TableEvent[]) => {
      for (const e of events) {
        page.seen.push(e.seq); // apply each to what is drawn
        if (e.type === 'push_rotated') page.rotated.push(e.seq);
      }
      log(`events ${events.map((e) => `${e.seq} ${e.type}`).join(', ')}`);
    },
    onChat: (message) => void page.chat.push(`${message.bettor_id}: ${message.text}`),
    onStatus: (status: PushStatus, detail?: string) => {
      page.statuses.push(detail ? `${status} ${detail}` : status);
      if (status === 'closed') page.closed = detail ?? 'closed';
      log(`status ${status}${detail ? ` (${detail})` : ''}`);
    },
    onError: (err) => log(`push: ${String(err)}`),
  });
  // [/subscribe]
  return Object.assign(page, { sub });
}

/** Each event from the page's snapshot on, once, in order? */
function outcome(page: Page) {
  const start = (page.snapshotSeq ?? 0) + 1;
  const last = page.sub.lastSeq();
  return {
    snapshot_seq: page.snapshotSeq,
    last_seq: last,
    received: page.seen.length,
    duplicates: page.seen.length - new Set(page.seen).size,
    lost: last - start + 1 - new Set(page.seen).size,
    in_order: page.seen.every((s, i) => s === start + i),
    rotated: page.rotated,
    chat: page.chat,
    statuses: page.statuses,
    closed: page.closed,
  };
}

async function main(): Promise<number> {
  const operator = createBaccaratClient({ baseUrl: url, apiKey: key });
  const table = await unwrap(
    operator.POST('/v1/tables', { body: { profile: 'star-city', tier: 'star-city-fun', banking: 'house' } }),
  );
  const tableId = table.table_id;
  const watchers = (numbers: number[]) =>
    Promise.all(
      numbers.map((n) =>
        unwrap(operator.PUT('/v1/tables/{table_id}/watchers/{bettor_id}', { params: { path: { table_id: tableId, bettor_id: `w${n}` } } })),
      ),
    );
  await unwrap(
    operator.PUT('/v1/tables/{table_id}/seats/{seat}', {
      params: { path: { table_id: tableId, seat: 1 } },
      body: { bettor_id: 'alice', balance: 50_000 },
    }),
  );

  // [mint]
  // the operator's server: a token for alice at this table, handed to her page
  const minted = await mintTableToken(operator, tableId, { bettor_id: 'alice', role: 'seat', ttl_seconds: 600 });
  // minted.push_url, minted.push_channel: where her page subscribes (before its first state read)
  // [/mint]
  const alice = openPage(operator, tableId, 'alice', minted);
  // with --revoke, bob watches too: alice's revocation rotates his channel, he follows it
  const bob = args.revoke
    ? openPage(operator, tableId, 'bob', await mintTableToken(operator, tableId, { bettor_id: 'bob', role: 'watcher' }))
    : null;
  await until('live', () => [alice, bob].every((p) => p === null || p.statuses.includes('live')));

  const actions = Number(args.actions);
  const bursts = 4;
  for (let b = 0; b < bursts; b++) {
    await watchers(Array.from({ length: actions }, (_, n) => n).filter((n) => n % bursts === b)); // at once
    await sleep(30);
  }
  const line = await fetch(`${url}/v1/tables/${tableId}/chat`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${minted.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ text: 'good luck 祝好運' }),
  });
  if (line.status !== 201) throw new Error(`chat answered ${line.status}`);
  const state = () => unwrap(operator.GET('/v1/tables/{table_id}/state', { params: { path: { table_id: tableId } } }));
  const finalSeq = (await state()).seq;
  await until(`seq ${finalSeq}`, () => alice.sub.lastSeq() >= finalSeq && alice.chat.length > 0);

  if (args.revoke && bob) {
    // [revoke]
    await revokeToken(operator, tableId, minted.jti); // her channel rotates; her page is closed
    // [/revoke]
    await until('closed', () => alice.closed !== null);
    await watchers([actions, actions + 1, actions + 2]); // the table goes on: bob, on the new channel, sees it
    const after = (await state()).seq;
    await until(`bob at seq ${after}`, () => bob.sub.lastSeq() >= after);
    bob.sub.close();
  } else {
    alice.sub.close();
  }

  const summary = { table_id: tableId, push_url: minted.push_url, push_channel: minted.push_channel,
    final_seq: finalSeq, ...outcome(alice), bob: bob && outcome(bob) };
  if (args['summary-json']) writeFileSync(args['summary-json'], JSON.stringify(summary, null, 2));
  const pages = [summary, ...(summary.bob ? [summary.bob] : [])];
  console.log(
    `received ${summary.received} events (seq ${(summary.snapshot_seq ?? 0) + 1}…${summary.last_seq}), duplicates ${summary.duplicates}, lost ${summary.lost}, in order ${summary.in_order}; chat ${summary.chat.length}; closed: ${summary.closed}`,
  );
  if (summary.bob) {
    const b = summary.bob;
    console.log(`bob: received ${b.received} events (seq ${(b.snapshot_seq ?? 0) + 1}…${b.last_seq}) across the rotation, duplicates ${b.duplicates}, lost ${b.lost}, in order ${b.in_order}`);
  }
  const ok =
    pages.every((p) => p.duplicates === 0 && p.lost === 0 && p.in_order) &&
    (!args.revoke || (summary.closed === 'subscribe_refused' && summary.bob?.closed === 'closed'));
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

// web/push.js (generated from clients/typescript/src/push.ts) against a fake table: a scripted
// AppSync-Events socket, a fake fetch serving the table's state, feed and chat from one list of
// events, and a manual clock (no sleeping). What the page is promised: a snapshot, then every
// event after it once, in seq order — whatever the socket repeats, reorders, loses or closes —
// plus the ka timeout, jittered reconnects, the quiet poll, rotation and token renewal. Run:
// node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const P = require('../push.js');

const API = 'https://api.example';
const PUSH = 'wss://abc.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime';
const TABLE = 'tbl_test';

/** A seeded PRNG (mulberry32): the property cases are reproducible. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const flush = async () => {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
};

function event(seq, type = 'watcher_joined', data = { bettor_id: `w${seq}` }) {
  return { event_id: `${TABLE}:${seq}`, seq, type, at: '2026-12-05T00:00:00.000Z', data };
}

/** A manual clock: timers run only when the test advances it. */
function manualClock() {
  let now = 1_800_000_000_000;
  let timers = [];
  let id = 0;
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const t = { id: ++id, at: now + ms, fn };
      timers.push(t);
      return t.id;
    },
    clearTimeout(h) {
      timers = timers.filter((t) => t.id !== h);
    },
    pending: () => timers.map((t) => t.at - now).sort((a, b) => a - b),
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        await flush();
        const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.fn();
      }
      now = end;
      await flush();
    },
  };
}

/**
 * The fake service: `table.events` is the table's whole feed (strongly consistent), `table.seq`
 * its head; sockets answer connection_init/subscribe by themselves (`refuse` names channels
 * whose subscription is refused).
 */
function fakeService(opts = {}) {
  const svc = {
    events: [],
    chat: [],
    channel: `/tables/${TABLE}/e1`,
    requests: [],
    sockets: [],
    refuse: new Set(),
    holdState: null, // a promise the next state read waits for
    stateSeq: null, // a state read behind the events already pushed (an eventually consistent read)
    you: null,
    holdSubs: false, // subscribe answers wait in heldSubs until the test calls their answer()
    heldSubs: [],
    httpError: null, // {status, code}: every request answers it
    chatError: null, // {status, code}: GET …/chat answers it
    ackTimeoutMs: 300_000,
    get seq() {
      return svc.events.length;
    },
    add(n, type, data) {
      const added = [];
      for (let i = 0; i < n; i++) {
        const e = event(svc.seq + 1, type, data);
        svc.events.push(e);
        added.push(e);
      }
      return added;
    },
    socket: () => svc.sockets[svc.sockets.length - 1],
  };
  svc.fetch = async (url, init) => {
    const u = new URL(url);
    svc.requests.push({ path: u.pathname + u.search, headers: { ...init.headers } });
    const json = (status, body, headers = {}) => ({
      status,
      ok: status >= 200 && status < 300,
      headers: { get: (k) => headers[k.toLowerCase()] ?? null },
      json: async () => body,
    });
    if (svc.httpError) return json(svc.httpError.status, { error: { code: svc.httpError.code } });
    const base = `/v1/tables/${TABLE}`;
    if (u.pathname === `${base}/state`) {
      const seq = svc.stateSeq ?? svc.seq; // read now, answered after the hold (stateSeq: a stale read)
      if (svc.holdState) await svc.holdState;
      return json(200, { table_id: TABLE, seq, push_url: PUSH, push_channel: svc.channel, you: svc.you });
    }
    if (u.pathname === `${base}/events`) {
      const after = Number(u.searchParams.get('after'));
      const limit = Number(u.searchParams.get('limit') ?? 50);
      const page = svc.events.filter((e) => e.seq > after).slice(0, limit);
      const etag = `"${after}-${page.length}"`;
      if (init.headers['If-None-Match'] === etag) return json(304, null);
      const more = svc.events.some((e) => e.seq > after + page.length);
      return json(200, { table_id: TABLE, events: page, next_after: after + page.length, more }, { etag });
    }
    if (u.pathname === `${base}/chat`) {
      if (svc.chatError) return json(svc.chatError.status, { error: { code: svc.chatError.code } });
      return json(200, { messages: svc.chat });
    }
    return json(404, { error: { code: 'not_found' } });
  };
  class FakeSocket {
    constructor(url, protocols) {
      this.url = url;
      this.protocols = protocols;
      this.sent = [];
      this.readyState = 0;
      this.closedWith = null;
      this.onopen = this.onmessage = this.onclose = this.onerror = null;
      svc.sockets.push(this);
      if (!opts.silent) queueMicrotask(() => this.open());
    }
    open() {
      this.readyState = 1;
      this.onopen && this.onopen({});
    }
    frame(msg) {
      this.onmessage && this.onmessage({ data: JSON.stringify(msg) });
    }
    data(id, message) {
      this.frame({ type: 'data', id, event: JSON.stringify(message) });
    }
    events(...seqs) {
      const byId = new Map(svc.events.map((e) => [e.seq, e]));
      this.data(this.subId(), { type: 'events', table_id: TABLE, events: seqs.map((s) => byId.get(s) ?? event(s)) });
    }
    subId() {
      const subs = this.sent.filter((m) => m.type === 'subscribe');
      return subs[subs.length - 1].id;
    }
    send(text) {
      const msg = JSON.parse(text);
      this.sent.push(msg);
      if (opts.silent) return;
      if (msg.type === 'connection_init') queueMicrotask(() => this.frame({ type: 'connection_ack', connectionTimeoutMs: svc.ackTimeoutMs }));
      if (msg.type === 'subscribe') {
        const ok = !svc.refuse.has(msg.channel);
        const answer = () =>
          this.frame(ok ? { type: 'subscribe_success', id: msg.id } : { type: 'subscribe_error', id: msg.id, errors: [{ errorType: 'UnauthorizedException' }] });
        if (svc.holdSubs) svc.heldSubs.push({ id: msg.id, answer }); // answered when the test says
        else queueMicrotask(answer);
      }
    }
    close(code) {
      this.closedWith = code ?? 1000;
      this.readyState = 3;
    }
    drop() {
      // the server (or the network) ends the connection
      this.readyState = 3;
      this.onclose && this.onclose({ code: 1006 });
    }
  }
  svc.WebSocket = FakeSocket;
  return svc;
}

/** subscribeTable on a fake service, recording what the page is told. */
function follow(svc, extra = {}) {
  const seen = { snapshots: [], events: [], batches: 0, statuses: [], errors: [], chat: [] };
  const clock = extra.clock ?? manualClock();
  const sub = P.subscribeTable({
    api: API,
    tableId: TABLE,
    token: 'tok1',
    WebSocket: svc.WebSocket,
    fetch: svc.fetch,
    clock,
    random: () => 1,
    onSnapshot: (s) => {
      seen.snapshots.push(s.seq);
      seen.events = []; // the page redraws from a snapshot
    },
    onEvents: (events) => {
      seen.batches++;
      seen.events.push(...events.map((e) => e.seq));
    },
    onChat: (m) => seen.chat.push(m.message_id),
    onStatus: (s, d) => seen.statuses.push(d ? `${s}:${d}` : s),
    onError: (e) => seen.errors.push(e),
    ...extra,
  });
  return { sub, seen, clock };
}

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const feedReads = (svc) => svc.requests.filter((r) => r.path.includes('/events')).map((r) => r.path);

test('connects with the AppSync subprotocols, subscribes to the state\'s channel, goes live', async () => {
  const svc = fakeService();
  svc.add(3);
  const { sub, seen, clock } = follow(svc);
  await clock.advance(0);
  const ws = svc.socket();
  assert.equal(ws.url, PUSH);
  assert.equal(ws.protocols[0], 'aws-appsync-event-ws');
  const header = JSON.parse(Buffer.from(ws.protocols[1].slice('header-'.length), 'base64url').toString());
  assert.deepEqual(header, { host: 'abc.appsync-api.eu-west-1.amazonaws.com', Authorization: 'Bearer tok1' });
  assert.doesNotMatch(ws.protocols[1], /[=+/]/);
  assert.deepEqual(ws.sent.map((m) => m.type), ['connection_init', 'subscribe']);
  assert.equal(ws.sent[1].channel, `/tables/${TABLE}/e1`);
  assert.deepEqual(seen.snapshots, [3]);
  assert.deepEqual(seen.statuses, ['connecting', 'live']);
  assert.equal(sub.lastSeq(), 3);
  assert.ok(svc.requests.every((r) => r.headers.Authorization === 'Bearer tok1'));
  sub.close();
  assert.equal(ws.closedWith, 1000);
  assert.equal(seen.statuses.at(-1), 'closed'); // no reason: the page closed it
});

test('events pushed before the snapshot answers are buffered: those after its seq applied, in order, once', async () => {
  const svc = fakeService();
  svc.add(4);
  let release;
  svc.holdState = new Promise((r) => (release = r));
  // the design's order: the mint answer's URL and channel → subscribe first, then the state
  const { seen, clock } = follow(svc, { pushUrl: PUSH, channel: svc.channel });
  await clock.advance(0);
  const ws = svc.socket();
  assert.deepEqual(ws.sent.map((m) => m.type), ['connection_init', 'subscribe']);
  svc.add(2); // 5, 6 happen while the state (read at seq 4) is on its way
  ws.events(3, 4);
  ws.events(5);
  ws.events(6, 5);
  assert.deepEqual(seen.snapshots, []);
  release();
  await clock.advance(0);
  assert.deepEqual(seen.snapshots, [4]);
  assert.deepEqual(seen.events, [5, 6]); // 3 and 4 are in the snapshot; 5 once
  svc.add(1);
  ws.events(7);
  await clock.advance(0);
  assert.deepEqual(seen.events, [5, 6, 7]);
  assert.deepEqual(feedReads(svc), []); // no gap, no feed read
});

test('repeats are dropped; a gap is filled from the feed page by page until more is false', async () => {
  const svc = fakeService();
  svc.add(2);
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  const reads = feedReads(svc).length;
  const ws = svc.socket();
  svc.add(250);
  ws.events(3);
  ws.events(3, 2, 1);
  ws.events(252); // a gap of 248
  ws.events(4, 252);
  await clock.advance(0);
  assert.deepEqual(seen.events, range(3, 252));
  const gap = feedReads(svc).slice(reads);
  assert.deepEqual(gap, [
    `/v1/tables/${TABLE}/events?after=3&limit=100`,
    `/v1/tables/${TABLE}/events?after=103&limit=100`,
    `/v1/tables/${TABLE}/events?after=203&limit=100`,
  ]);
  assert.ok(seen.statuses.includes('resyncing:gap'));
  assert.equal(seen.statuses.at(-1), 'live');
});

test('property: any interleaving of repeats, reorderings and losses gives every event once, in order', async () => {
  const rand = prng(27);
  for (let c = 0; c < 150; c++) {
    const svc = fakeService();
    svc.add(Math.floor(rand() * 5));
    const { seen, clock, sub } = follow(svc);
    await clock.advance(0);
    const start = svc.seq;
    const n = 1 + Math.floor(rand() * 40);
    svc.add(n);
    // messages: batches of consecutive seqs, each maybe repeated, swapped with its neighbour or lost
    const batches = [];
    for (let s = start + 1; s <= start + n; ) {
      const len = 1 + Math.floor(rand() * 4);
      batches.push(range(s, Math.min(start + n, s + len - 1)));
      s += len;
    }
    const sent = [];
    for (const b of batches) {
      const r = rand();
      if (r < 0.15) continue; // lost
      sent.push(b);
      if (r < 0.35) sent.push(b); // repeated
    }
    for (let i = 0; i + 1 < sent.length; i++) if (rand() < 0.2) [sent[i], sent[i + 1]] = [sent[i + 1], sent[i]];
    for (const b of sent) svc.socket().events(...(rand() < 0.3 ? [...b].reverse() : b));
    await clock.advance(0);
    await clock.advance(P.QUIET_POLL_MS); // a lost tail: the quiet poll finds it
    const want = range(start + 1, start + n);
    assert.deepEqual(seen.events, want, `case ${c}: sent ${JSON.stringify(sent)}`);
    assert.equal(sub.lastSeq(), start + n);
    sub.close();
  }
});

test('no ka within connectionTimeoutMs closes the socket; the reconnect resumes from the feed', async () => {
  const svc = fakeService();
  svc.ackTimeoutMs = 3000;
  svc.add(5);
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  const first = svc.socket();
  await clock.advance(2000);
  first.frame({ type: 'ka' });
  await clock.advance(2999);
  assert.equal(svc.sockets.length, 1, 'a ka resets the wait');
  svc.add(3); // happens while the connection is silent
  await clock.advance(1);
  assert.equal(first.closedWith, 4000);
  assert.equal(seen.statuses.at(-1), 'reconnecting');
  await clock.advance(P.pushBackoffMs(0, () => 1) - 1);
  assert.equal(svc.sockets.length, 1, 'waits the backoff');
  await clock.advance(1);
  assert.equal(svc.sockets.length, 2);
  assert.deepEqual(seen.events, [6, 7, 8]); // from the feed, no new snapshot
  assert.deepEqual(seen.snapshots, [5]);
  assert.equal(seen.statuses.at(-1), 'live');
});

test('reconnects back off exponentially with jitter, capped, and start over once live', async () => {
  assert.deepEqual([0, 1, 2, 3, 6, 7, 20].map((n) => P.pushBackoffMs(n, () => 1)), [500, 1000, 2000, 4000, 30000, 30000, 30000]);
  assert.deepEqual([0, 3].map((n) => P.pushBackoffMs(n, () => 0)), [250, 2000]);
  const rand = prng(3);
  for (let i = 0; i < 200; i++) {
    const n = Math.floor(rand() * 10);
    const d = P.pushBackoffMs(n, rand);
    const cap = Math.min(30000, 500 * 2 ** n);
    assert.ok(d >= cap / 2 && d <= cap, `${n}: ${d}`);
  }
  const svc = fakeService({ silent: true }); // sockets that never answer
  svc.add(1);
  const { seen, clock } = follow(svc, { pushUrl: PUSH, channel: svc.channel });
  await clock.advance(0);
  const gaps = [];
  for (let k = 0; k < 4; k++) {
    const before = clock.now();
    svc.socket().drop();
    const count = svc.sockets.length;
    while (svc.sockets.length === count) await clock.advance(50);
    gaps.push(clock.now() - before);
  }
  assert.deepEqual(gaps, [500, 1000, 2000, 4000]);
  assert.ok(seen.statuses.every((s) => s === 'connecting' || s === 'reconnecting'));
});

test('a reconnect more than 100 events behind reads a fresh snapshot instead of the feed', async () => {
  const svc = fakeService();
  svc.add(10);
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  svc.socket().drop();
  svc.add(150);
  await clock.advance(500);
  assert.deepEqual(seen.snapshots, [10, 160]);
  assert.deepEqual(seen.events, []);
  svc.add(1);
  svc.socket().events(161);
  await clock.advance(0);
  assert.deepEqual(seen.events, [161]);
});

/** A follower live at seq 2 that has read the table's one chat line, ch_1. */
async function chatting() {
  const svc = fakeService();
  svc.add(2);
  svc.chat = [{ message_id: 'ch_1', bettor_id: 'a', text: 'hi', at: 'x' }];
  const f = follow(svc);
  await f.clock.advance(0);
  assert.deepEqual(f.seen.chat, ['ch_1']);
  return { svc, ...f };
}

test('rotate: the old subscription ends, the new channel is subscribed, chat re-read; a refusal closes', async () => {
  const { svc, seen, clock } = await chatting();
  const ws = svc.socket();
  const old = ws.subId();
  svc.add(1, 'push_rotated', { epoch: 2 });
  svc.chat.push({ message_id: 'ch_2', bettor_id: 'b', text: 'lost in the rotation', at: 'y' });
  svc.channel = `/tables/${TABLE}/e2`;
  ws.events(3);
  ws.data(old, { type: 'rotate', table_id: TABLE, channel: svc.channel });
  await clock.advance(0);
  assert.deepEqual(ws.sent.slice(-2).map((m) => [m.type, m.id === old, m.channel]), [
    ['unsubscribe', true, undefined],
    ['subscribe', false, svc.channel],
  ]);
  assert.deepEqual(seen.chat, ['ch_1', 'ch_2']);
  svc.add(1);
  ws.data(old, { type: 'events', table_id: TABLE, events: [svc.events[3]] }); // the old id: ignored
  await clock.advance(0);
  assert.deepEqual(seen.events, [3]);
  ws.events(4);
  ws.data(ws.subId(), { type: 'chat', table_id: TABLE, message: svc.chat[1] }); // a repeat
  await clock.advance(0);
  assert.deepEqual(seen.events, [3, 4]);
  assert.deepEqual(seen.chat, ['ch_1', 'ch_2']);
  // the next rotation is a revocation of this token: the new channel refuses it
  svc.refuse.add(`/tables/${TABLE}/e3`);
  ws.data(ws.subId(), { type: 'rotate', table_id: TABLE, channel: `/tables/${TABLE}/e3` });
  await clock.advance(0);
  assert.equal(seen.statuses.at(-1), 'closed:subscribe_refused');
  assert.ok(seen.errors.some((e) => e instanceof P.PushRefusedError));
  await clock.advance(120_000);
  assert.equal(svc.sockets.length, 1, 'no reconnect after a refusal');
  assert.deepEqual(clock.pending(), []);
});

test('60 s before expiresAt the page is asked for a token; the subscription and requests move to it', async () => {
  const svc = fakeService();
  svc.add(1);
  const clock = manualClock();
  const exp = clock.now() / 1000 + 600;
  let asked = 0;
  const { seen } = follow(svc, {
    clock,
    expiresAt: exp,
    onTokenExpiring: async () => {
      asked++;
      return { token: `tok${asked + 1}`, expires_at: new Date((exp + 3600 * asked) * 1000).toISOString() };
    },
  });
  await clock.advance(0);
  await clock.advance(540_000 - 1);
  assert.equal(asked, 0);
  await clock.advance(1);
  assert.equal(asked, 1);
  const ws = svc.socket();
  const sub = ws.sent.filter((m) => m.type === 'subscribe');
  assert.equal(sub.length, 2);
  assert.deepEqual(sub[1].authorization, { Authorization: 'Bearer tok2' });
  assert.deepEqual(ws.sent.at(-1), { type: 'unsubscribe', id: sub[0].id });
  ws.drop();
  await clock.advance(500);
  const header = JSON.parse(Buffer.from(svc.socket().protocols[1].slice(7), 'base64url').toString());
  assert.equal(header.Authorization, 'Bearer tok2');
  assert.equal(svc.requests.at(-1).headers.Authorization, 'Bearer tok2');
  await clock.advance(3600_000 - 500 - 1);
  assert.equal(asked, 1);
  await clock.advance(1);
  assert.equal(asked, 2, 'the next renewal is from the fresh token\'s expiry');
  assert.equal(seen.statuses.some((s) => s.startsWith('closed')), false);
  await clock.advance(P.QUIET_POLL_MS);
  assert.equal(svc.requests.at(-1).headers.Authorization, 'Bearer tok3');
});

test('without a renewal the page is closed at expiresAt; a revoked token on HTTP closes it too', async () => {
  const svc = fakeService();
  const clock = manualClock();
  const { seen } = follow(svc, { clock, expiresAt: clock.now() / 1000 + 100 });
  await clock.advance(100_000 - 1);
  assert.equal(seen.statuses.at(-1), 'live');
  await clock.advance(1);
  assert.equal(seen.statuses.at(-1), 'closed:token_expired');
  const svc2 = fakeService();
  svc2.httpError = { status: 401, code: 'token_revoked' };
  const b = follow(svc2);
  await b.clock.advance(0);
  assert.equal(b.seen.statuses.at(-1), 'closed:token_revoked');
  assert.equal(b.seen.errors[0].code, 'token_revoked');
  assert.equal(svc2.sockets.length, 0);
});

test('30 s without a table message polls the feed with If-None-Match (304 while nothing is new)', async () => {
  const svc = fakeService();
  svc.add(4);
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  const before = feedReads(svc).length;
  await clock.advance(P.QUIET_POLL_MS - 1);
  assert.equal(feedReads(svc).length, before);
  svc.socket().frame({ type: 'ka' }); // a ka is not a table message
  await clock.advance(1);
  await clock.advance(P.QUIET_POLL_MS);
  const polls = svc.requests.filter((r) => r.path.includes('/events')).slice(-2);
  assert.equal(polls.length, 2);
  assert.equal(polls[1].headers['If-None-Match'], '"4-0"');
  svc.add(1); // a publish lost at a quiet table
  await clock.advance(P.QUIET_POLL_MS);
  assert.deepEqual(seen.events, [5]);
});

test('an update naming the token\'s own person re-reads the state (its balance is not in events)', async () => {
  const svc = fakeService();
  svc.you = { bettor_id: 'alice', role: 'seat', place: 'seat 1', balance: 100 };
  svc.add(1);
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  svc.add(1, 'seat_updated', { seat: 2, bettor_id: 'bob' });
  svc.add(1, 'seat_updated', { seat: 1, bettor_id: 'alice' });
  svc.socket().events(2);
  await clock.advance(0);
  assert.deepEqual(seen.snapshots, [1]);
  svc.socket().events(3);
  await clock.advance(0);
  assert.deepEqual(seen.snapshots, [1, 3]);
  assert.equal(svc.requests.filter((r) => r.path.endsWith('/state')).length, 2);
});

test('refresh() re-reads the state; a page callback that throws is reported, not fatal', async () => {
  const svc = fakeService();
  svc.add(1);
  let boom = true;
  const { seen, clock, sub } = follow(svc, {
    onEvents: () => {
      if (boom) throw new Error('page bug');
    },
  });
  await clock.advance(0);
  svc.add(2);
  svc.socket().events(2);
  await clock.advance(0);
  boom = false;
  svc.socket().events(3);
  await clock.advance(0);
  assert.equal(sub.lastSeq(), 3);
  assert.equal(seen.errors[0].message, 'page bug');
  await sub.refresh();
  assert.deepEqual(seen.snapshots, [1, 3]);
  assert.equal(seen.statuses.at(-1), 'live');
});

test('a late snapshot older than the events applied is ignored: the page never goes back', async () => {
  const svc = fakeService();
  svc.add(3);
  const { sub, seen, clock } = follow(svc);
  await clock.advance(0);
  svc.add(2, 'bet_placed', { bettor_id: 'bob' }); // another player's slip: 4, 5
  svc.socket().events(4, 5);
  await clock.advance(0);
  assert.deepEqual(seen.events, [4, 5]);
  svc.stateSeq = 3; // the refresh's state was read before 4 and 5 (a slow, stale answer)
  await sub.refresh();
  assert.deepEqual(seen.snapshots, [3]); // not replaced by the older state
  assert.deepEqual(seen.events, [4, 5]); // bob's slip is still shown
  assert.equal(sub.lastSeq(), 5);
  svc.stateSeq = null;
  svc.add(1);
  svc.socket().events(6);
  await clock.advance(0);
  assert.deepEqual(seen.events, [4, 5, 6]); // once each, in order
  assert.deepEqual(feedReads(svc), [`/v1/tables/${TABLE}/events?after=3&limit=100`]); // the resume's only
  await clock.advance(1_000); // the stale read is read again once, a second later: now fresh
  assert.deepEqual(seen.snapshots, [3, 6]);
  assert.deepEqual(seen.events, []); // the page redrew from the fresh state (seq 6)
  assert.equal(svc.requests.filter((r) => r.path.endsWith('/state')).length, 3);
  svc.stateSeq = 2; // stale again, and again a second later: one more read only, never a loop
  await sub.refresh();
  await clock.advance(5_000);
  assert.deepEqual(seen.snapshots, [3, 6]);
  assert.equal(svc.requests.filter((r) => r.path.endsWith('/state')).length, 5);
  assert.equal(sub.lastSeq(), 6);
});

test('a token\'s exp claim is read when the page answers only the token', () => {
  const claims = Buffer.from(JSON.stringify({ v: 1, exp: 1893456000 })).toString('base64url');
  assert.equal(P.tokenExpiry(`bpt1.${claims}.mac`), 1893456000);
  assert.equal(P.tokenExpiry('bk_operatorkey'), null);
  assert.equal(P.tokenExpiry({ token: 'x', expiresAt: 5 }), 5);
});

test('a mint\'s channel rotated since is refused: the state names the current one, subscribed there', async () => {
  const svc = fakeService();
  svc.add(3);
  svc.channel = `/tables/${TABLE}/e2`;
  svc.refuse.add(`/tables/${TABLE}/e1`);
  const { seen, clock } = follow(svc, { pushUrl: PUSH, channel: `/tables/${TABLE}/e1` });
  await clock.advance(0);
  const ws = svc.socket();
  assert.deepEqual(ws.sent.filter((m) => m.type === 'subscribe').map((m) => m.channel), [
    `/tables/${TABLE}/e1`,
    `/tables/${TABLE}/e2`,
  ]);
  assert.deepEqual(seen.snapshots, [3]);
  assert.equal(seen.statuses.at(-1), 'live');
  svc.add(1);
  ws.events(4);
  await clock.advance(0);
  assert.deepEqual(seen.events, [4]);
  // refused again on the state's own channel: final
  svc.refuse.add(`/tables/${TABLE}/e3`);
  svc.channel = `/tables/${TABLE}/e3`;
  ws.data(ws.subId(), { type: 'rotate', table_id: TABLE, channel: svc.channel });
  await clock.advance(0);
  assert.equal(seen.statuses.at(-1), 'closed:subscribe_refused');
});

test('an API out of reach at the start is tried again with backoff, then followed', async () => {
  const svc = fakeService();
  svc.add(2);
  const real = svc.fetch;
  let down = 2;
  svc.fetch = async (url, init) => {
    if (down > 0) {
      down--;
      throw new TypeError('fetch failed');
    }
    return real(url, init);
  };
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  assert.equal(seen.statuses.at(-1), 'reconnecting');
  assert.equal(svc.sockets.length, 0);
  await clock.advance(500 + 1000);
  assert.deepEqual(seen.snapshots, [2]);
  assert.equal(svc.sockets.length, 1);
  assert.equal(seen.statuses.at(-1), 'live');
  assert.equal(seen.errors.length, 2);
});

test('a state without push_url (no push configured) is followed by polling the feed', async () => {
  const svc = fakeService();
  svc.add(1);
  const real = svc.fetch;
  svc.fetch = async (url, init) => {
    const r = await real(url, init);
    if (!url.includes('/state')) return r;
    const body = await r.json();
    return { ...r, json: async () => ({ ...body, push_url: null }) };
  };
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  assert.deepEqual(seen.statuses, ['connecting', 'live:poll']);
  svc.add(2);
  await clock.advance(P.POLL_ONLY_MS);
  assert.deepEqual(seen.events, [2, 3]);
  assert.equal(svc.sockets.length, 0);
});

test('a socket that opens but never acknowledges is given up after CONNECT_TIMEOUT_MS', async () => {
  const svc = fakeService({ silent: true });
  svc.add(1);
  const { seen, clock } = follow(svc, { pushUrl: PUSH, channel: svc.channel });
  await clock.advance(0);
  svc.socket().open(); // connection_init sent, never answered
  assert.deepEqual(svc.socket().sent.map((m) => m.type), ['connection_init']);
  await clock.advance(P.CONNECT_TIMEOUT_MS - 1);
  assert.equal(svc.socket().closedWith, null);
  await clock.advance(1);
  assert.equal(svc.sockets[0].closedWith, 4000);
  assert.equal(seen.statuses.at(-1), 'reconnecting');
  await clock.advance(500);
  assert.equal(svc.sockets.length, 2);
});

// --- races of a resubscription (token renewal, rotation) ------------------------------------------

/** A follower whose token is renewed (tok2, tok3 …) 60 s before each expiry, live at seq `n`. */
async function renewing(svc, n = 2) {
  svc.ackTimeoutMs = 3_600_000; // no ka timeout in these tests: one socket throughout
  svc.add(n);
  const clock = manualClock();
  const exp = clock.now() / 1000 + 600;
  let asked = 0;
  const f = follow(svc, {
    clock,
    expiresAt: exp,
    onTokenExpiring: async () => {
      asked++;
      return { token: `tok${asked + 1}`, expiresAt: exp + 3600 * asked };
    },
  });
  await clock.advance(0);
  return f;
}

test('an event pushed on the subscription a renewal replaces, after the new one answered, is applied', async () => {
  const svc = fakeService();
  const { seen, clock } = await renewing(svc);
  const ws = svc.socket();
  const old = ws.subId();
  await clock.advance(540_000); // renewal: a new subscription with tok2, the old one unsubscribed
  assert.notEqual(ws.subId(), old);
  const reads = feedReads(svc).length;
  svc.add(1);
  // seq 3 was published just before the new subscription took effect: only the old one carries
  // it, and its delivery comes after subscribe_success (the socket does not order the two)
  ws.data(old, { type: 'events', table_id: TABLE, events: [svc.events[2]] });
  await clock.advance(0);
  assert.deepEqual(seen.events, [3]); // not left to the next event or the 30 s quiet poll
  assert.equal(feedReads(svc).length, reads); // no feed read: nothing was lost
  ws.data(ws.subId(), { type: 'events', table_id: TABLE, events: [svc.events[2]] }); // a repeat
  await clock.advance(0);
  assert.deepEqual(seen.events, [3]);
});

test('a rotation after a renewal subscribes with the fresh token, not the connection\'s expired one', async () => {
  const svc = fakeService();
  const { seen, clock } = await renewing(svc);
  await clock.advance(540_000); // renewed to tok2 (the socket was opened with tok1)
  await clock.advance(120_000); // tok1 has expired; the socket is still the one it opened
  assert.equal(svc.sockets.length, 1);
  const ws = svc.socket();
  svc.channel = `/tables/${TABLE}/e2`;
  ws.data(ws.subId(), { type: 'rotate', table_id: TABLE, channel: svc.channel });
  await clock.advance(0);
  const sub = ws.sent.filter((m) => m.type === 'subscribe').at(-1);
  assert.equal(sub.channel, svc.channel);
  // the authorizer re-checks each subscribe: without it, the connection's tok1 would be checked
  assert.deepEqual(sub.authorization, { Authorization: 'Bearer tok2' });
  assert.equal(seen.statuses.at(-1), 'live');
});

test('a renewal\'s subscribe refused because the channel rotated meanwhile does not end the page', async () => {
  const svc = fakeService();
  const { seen, clock } = await renewing(svc);
  const ws = svc.socket();
  // a revocation (of someone else's token) bumps the epoch just before the renewal: e1 now
  // refuses every subscribe, and the rotate message is still on its way on the old subscription
  svc.add(1, 'push_rotated', { epoch: 2 });
  svc.refuse.add(`/tables/${TABLE}/e1`);
  svc.channel = `/tables/${TABLE}/e2`;
  await clock.advance(540_000);
  assert.deepEqual(seen.statuses.filter((s) => s.startsWith('closed')), []);
  ws.events(3);
  ws.data(ws.sent.find((m) => m.type === 'subscribe').id, { type: 'rotate', table_id: TABLE, channel: svc.channel });
  await clock.advance(0);
  const last = ws.sent.filter((m) => m.type === 'subscribe').at(-1);
  assert.equal(last.channel, svc.channel);
  assert.deepEqual(last.authorization, { Authorization: 'Bearer tok2' });
  svc.add(1);
  ws.events(4);
  await clock.advance(0);
  assert.deepEqual(seen.events, [3, 4]);
  assert.equal(seen.statuses.at(-1), 'live');
});

test('a renewal\'s subscribe answered after a rotation\'s never takes the page back to the old channel', async () => {
  const svc = fakeService();
  const { seen, clock } = await renewing(svc);
  const ws = svc.socket();
  const first = ws.subId();
  svc.holdSubs = true;
  await clock.advance(540_000); // the renewal subscribes to e1 again: not answered yet
  const renewal = svc.heldSubs.shift();
  svc.add(1, 'push_rotated', { epoch: 2 });
  svc.channel = `/tables/${TABLE}/e2`;
  ws.events(3);
  ws.data(first, { type: 'rotate', table_id: TABLE, channel: svc.channel });
  await clock.advance(0);
  const rotation = svc.heldSubs.shift();
  rotation.answer(); // e2's subscription answers first …
  renewal.answer(); // … then e1's (answers of two subscribes come in any order)
  await clock.advance(0);
  const unsubscribed = ws.sent.filter((m) => m.type === 'unsubscribe').map((m) => m.id);
  assert.ok(!unsubscribed.includes(rotation.id), 'the current channel\'s subscription is kept');
  assert.ok(unsubscribed.includes(renewal.id), 'the stale one is ended');
  svc.add(1);
  ws.data(rotation.id, { type: 'events', table_id: TABLE, events: [svc.events[3]] });
  await clock.advance(0);
  assert.deepEqual(seen.events, [3, 4]);
});

test('a chat line posted while the socket was down is read after the reconnect (chat has no seq to gap-fill)', async () => {
  const { svc, seen, clock } = await chatting();
  svc.socket().drop();
  // posted while this page had no subscription: its push reached nobody here
  svc.chat.push({ message_id: 'ch_2', bettor_id: 'b', text: 'said during the reconnect', at: 'y' });
  await clock.advance(P.pushBackoffMs(0, () => 1));
  assert.equal(svc.sockets.length, 2);
  assert.equal(seen.statuses.at(-1), 'live');
  assert.deepEqual(seen.chat, ['ch_1', 'ch_2']);
});

/** The subscription ids still open on `ws` (subscribed, never unsubscribed). */
const openSubs = (ws) => {
  const ended = new Set(ws.sent.filter((m) => m.type === 'unsubscribe').map((m) => m.id));
  return ws.sent.filter((m) => m.type === 'subscribe' && !ended.has(m.id)).map((m) => m.id);
};

test('a rotate repeated, both subscribes answered after both ran: one subscription stays, every event once', async () => {
  const svc = fakeService();
  svc.add(2);
  const { seen, clock } = follow(svc);
  await clock.advance(0);
  const ws = svc.socket();
  svc.add(1, 'push_rotated', { epoch: 2 });
  svc.channel = `/tables/${TABLE}/e2`;
  const rot = { type: 'rotate', table_id: TABLE, channel: svc.channel };
  const id = ws.subId();
  svc.holdSubs = true;
  ws.data(id, rot);
  ws.data(id, rot); // the socket repeats a message
  await clock.advance(0);
  for (const h of svc.heldSubs.splice(0)) h.answer();
  await clock.advance(0);
  assert.equal(openSubs(ws).length, 1, 'one subscription left on the socket');
  svc.add(1);
  for (const s of ws.sent.filter((m) => m.type === 'subscribe')) ws.data(s.id, { type: 'events', table_id: TABLE, events: [svc.events[3]] });
  await clock.advance(0);
  assert.deepEqual(seen.events, [3, 4]);
  assert.equal(seen.batches, 2);
});

test('after a renewal, a rotate on both the old and the new subscription leaves one subscription open', async () => {
  const svc = fakeService();
  const { seen, clock } = await renewing(svc);
  const ws = svc.socket();
  const old = ws.subId();
  await clock.advance(540_000);
  const renewed = ws.subId();
  assert.notEqual(renewed, old);
  svc.add(1, 'push_rotated', { epoch: 2 });
  svc.channel = `/tables/${TABLE}/e2`;
  const rot = { type: 'rotate', table_id: TABLE, channel: svc.channel };
  svc.holdSubs = true;
  ws.data(renewed, rot);
  ws.data(old, rot); // still in flight on the replaced subscription
  await clock.advance(0);
  for (const h of svc.heldSubs.splice(0)) h.answer();
  await clock.advance(0);
  const open = openSubs(ws);
  assert.equal(open.length, 1, 'one subscription left on the socket');
  assert.equal(ws.sent.find((m) => m.id === open[0] && m.type === 'subscribe').channel, svc.channel);
  svc.add(1);
  ws.events(4);
  await clock.advance(0);
  assert.deepEqual(seen.events, [3, 4]);
  assert.equal(seen.statuses.at(-1), 'live');
});

test('a rotation\'s subscribe refused after the next rotation moved on is reported, not the end', async () => {
  const svc = fakeService();
  svc.add(2);
  const { sub, seen, clock } = follow(svc);
  await clock.advance(0);
  const ws = svc.socket();
  svc.holdSubs = true;
  svc.refuse.add(`/tables/${TABLE}/e2`); // e2 was revoked again at once (a second revocation)
  ws.data(ws.subId(), { type: 'rotate', table_id: TABLE, channel: `/tables/${TABLE}/e2` });
  await clock.advance(0);
  const e2 = svc.heldSubs.shift();
  // before e2 answers, a state read (the page's refresh) names e3: the client moves on to it
  svc.channel = `/tables/${TABLE}/e3`;
  await sub.refresh();
  await clock.advance(0);
  const e3 = svc.heldSubs.shift();
  e2.answer(); // e2's refusal comes once e3 is the channel
  await clock.advance(0);
  assert.ok(seen.errors.some((e) => e instanceof P.PushRefusedError), 'the refusal is reported');
  assert.deepEqual(seen.statuses.filter((x) => x.startsWith('closed')), []);
  e3.answer();
  await clock.advance(0);
  assert.deepEqual(openSubs(ws).filter((id) => id !== e2.id), [e3.id]); // e2's: refused
  svc.add(1);
  ws.data(e3.id, { type: 'events', table_id: TABLE, events: [svc.events[2]] });
  await clock.advance(0);
  assert.deepEqual(seen.events, [3]);
  assert.equal(seen.statuses.at(-1), 'live');
  assert.equal(svc.sockets.length, 1);
});

test('a GET …/chat failing inside a resume is reported; the socket stays, the page goes live', async () => {
  const { svc, seen, clock } = await chatting();
  svc.chatError = { status: 503, code: 'unavailable' };
  svc.socket().drop();
  await clock.advance(P.pushBackoffMs(0, () => 1));
  assert.equal(svc.sockets.length, 2);
  const ws = svc.socket();
  assert.equal(ws.closedWith, null, 'chat is best-effort: the socket is kept');
  assert.equal(seen.statuses.at(-1), 'live');
  assert.ok(seen.errors.some((e) => e instanceof P.PushHttpError && e.status === 503));
  svc.add(1);
  ws.events(3);
  await clock.advance(0);
  assert.deepEqual(seen.events, [3]);
  // a final answer (the token revoked) still ends the page
  svc.chatError = { status: 401, code: 'token_revoked' };
  ws.drop();
  await clock.advance(P.pushBackoffMs(0, () => 1));
  assert.equal(seen.statuses.at(-1), 'closed:token_revoked');
});

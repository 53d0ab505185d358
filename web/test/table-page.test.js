// The table page's wiring (web/table.js) under Node: the page script itself with the scripts it
// loads (i18n, roads, table-state, table-render, table-actions), in a fake browser — a DOM of
// plain objects, the push channel replaced by a recorder the test drives (snapshots, events, chat
// lines), a fetch whose answers the test releases when it chooses (no sleeping). What it checks:
// an HTTP answer the page gets after newer events never undoes them (web/table-state.js decides;
// this file checks the page hands it what it needs). Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const WEB = path.join(__dirname, '..');
const SCRIPTS = ['i18n.js', 'roads.js', 'table-state.js', 'table-render.js', 'table-actions.js', 'table.js']
  .map((f) => [f, fs.readFileSync(path.join(WEB, f), 'utf8')]);
const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, 'table-events.json'), 'utf8'));
const API = 'https://api.example';

const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

/** A DOM node of plain fields: what the page sets and what the test reads. */
function node(tag) {
  const n = {
    tag, children: [], dataset: {}, attrs: {}, className: '', textContent: '', hidden: false,
    disabled: false, value: '', parent: null, listeners: {}, scrollTop: 0, scrollHeight: 0,
    appendChild(c) { c.parent = n; n.children.push(c); return c; },
    replaceChildren(...c) { n.children = []; c.forEach((x) => n.appendChild(x)); },
    setAttribute(k, v) {
      if (k.startsWith('data-')) n.dataset[k.slice(5).replace(/-([a-z])/g, (_, x) => x.toUpperCase())] = v;
      else n.attrs[k] = v;
    },
    addEventListener(type, fn) { n.listeners[type] = fn; },
    closest(sel) {
      const cls = sel.replace(/^\./, '');
      for (let x = n; x; x = x.parent) if (` ${x.className} `.includes(` ${cls} `)) return x;
      return null;
    },
    all() { return [n, ...n.children.flatMap((c) => c.all())]; },
  };
  return n;
}

const b64url = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** The first state of the fixture's bid-squeeze table with an open window and no slip (alice's). */
function openState() {
  const c = FIXTURE.cases.find((x) => x.seed === 'bid-squeeze');
  const s = c.states.find((x) => x.book.betting && x.book.betting.status === 'open' &&
    !Object.keys(x.book.seats).length);
  const closes = new Date(Date.now() + 60_000).toISOString(); // open on this computer's clock too
  return JSON.parse(JSON.stringify({ ...s, at: new Date().toISOString(), deadline: closes,
    book: { ...s.book, betting: { ...s.book.betting, closes_at: closes } } }));
}

/** The table page in a fake browser, as alice at seat 1 of `state`'s table. */
function tablePage(state) {
  const ids = new Map();
  const byId = (id) => (ids.has(id) ? ids.get(id) : ids.set(id, node('div')).get(id));
  const requests = [];
  const push = {};
  const token = `bpt1.${b64url({ tbl: state.table_id, sub: 'alice', role: 'seat', exp: 4_000_000_000 })}.mac`;
  const context = {
    URL, URLSearchParams, TextDecoder, atob, console, Date, Math, JSON, Promise,
    navigator: { language: 'en' },
    document: {
      getElementById: byId, createElement: node, createElementNS: (_, tag) => node(tag),
      documentElement: {}, body: node('body'), title: '',
    },
    location: { hash: `#token=${token}&api=${encodeURIComponent(API)}`, pathname: '/table', search: '', href: `${API}/table`, origin: API, assign() {} },
    history: { replaceState() {} },
    setInterval: () => 0,
    setTimeout: () => 0,
    clearTimeout() {},
    crypto: { randomUUID: () => `k${requests.length}` },
    BaccaratPush: {
      subscribeTable(o) {
        Object.assign(push, o);
        return { close() {}, refresh: async () => {} };
      },
    },
    fetch: (url, init) => new Promise((resolve) => {
      requests.push({ url: new URL(url), method: init.method || 'GET', body: init.body, resolve, done: false });
    }),
  };
  context.window = context;
  vm.createContext(context);
  for (const [file, source] of SCRIPTS) vm.runInContext(source, context, { filename: file });
  const answer = async (r, status, body) => {
    r.done = true;
    r.resolve({ status, ok: status < 300, text: async () => (body === undefined ? '' : JSON.stringify(body)) });
    await flush();
  };
  const P = {
    push, requests, byId,
    pending: (method, part) => requests.find((r) => !r.done && r.method === method && r.url.pathname.includes(part)),
    answer,
    async answerPending(method, part, status, body) {
      const r = P.pending(method, part);
      assert.ok(r, `no ${method} …${part} in flight`);
      await answer(r, status, body);
    },
    click: async (id, target) => {
      byId(id).listeners[id === 'chat-form' ? 'submit' : 'click']({ target, preventDefault() {} });
      await flush();
    },
    /** picks the first chip and clicks `area` */
    async stake(area) {
      await P.click('chips', byId('chips').children[0]);
      const a = byId('areas').children.find((x) => x.dataset.area === area);
      assert.ok(a && !a.disabled, `the ${area} area is not open`);
      await P.click('areas', a.children[0]);
    },
    /** the slip drawn on `seat`: its lines' text, [] for none */
    seatLines: (seat) => {
      const box = byId('seats').children.find((x) => String(x.dataset.seat) === String(seat));
      return box.all().filter((x) => / ?line\b/.test(x.className)).map((x) => x.textContent);
    },
    chatShown: () => byId('chat-list').children.map((li) => li.dataset.id),
  };
  return P;
}

/** A page live at an open window: the info and chat reads answered, the snapshot taken. */
async function live(chat = []) {
  const state = openState();
  const P = tablePage(state);
  await flush();
  const area = { min: 100, max: 100_000 };
  await P.answerPending('GET', '/v1/tables', 200, { next: null, tables: [{
    table_id: state.table_id, number: 9, name: null, tier_name: 'Standard', tier_name_zh: '標準', ratio: '1:10',
    chips: [100, 500], limits: { min_bet: 100, table_max: null, areas: { banker: area, player: area, tie: area } },
  }] });
  P.push.onSnapshot(state);
  await flush();
  return { P, state, chat };
}

const bet = (seq, bettor, type, amount) => ({ seq, type: 'bet_placed', at: new Date().toISOString(),
  data: { bettor_id: bettor, total: amount, lines: [{ type, amount }] } });
const slipOf = (state, order, type, amount) => ({
  table_id: state.table_id, betting: state.book.betting, spectators: {}, total: amount,
  seats: { 1: { bettor_id: 'alice', role: 'seat', seat: 1, bets: [{ type, amount, order }], total: amount, placed_at: 'x', order } },
});

test('the page: chat comes from the push client alone; a line removed is not brought back by its late /chat read', async () => {
  const { P, state } = await live();
  assert.ok(P.push.onChat, 'the push client is given onChat');
  assert.equal(P.requests.filter((r) => r.url.pathname.endsWith('/chat')).length, 0, 'no /chat read of the page\'s own');
  const line = { message_id: 'ch_1', bettor_id: 'bob', text: 'hi', at: state.at };
  P.push.onChat(line);
  assert.deepEqual(P.chatShown(), ['ch_1']);
  P.push.onEvents([{ seq: state.seq + 1, type: 'chat_message_deleted', at: state.at, data: { message_id: 'ch_1', by: 'operator' } }]);
  assert.deepEqual(P.chatShown(), []);
  P.push.onChat(line); // the push client's /chat read (a reconnect's), read before the removal
  assert.deepEqual(P.chatShown(), []);
});

test('the page: a cancel answered after a newer slip of alice\'s (another tab) keeps that slip', async () => {
  const { P, state } = await live();
  const s = state.seq;
  P.push.onEvents([bet(s + 1, 'alice', 'banker', 100)]);
  await flush();
  await P.click('cancel');
  const del = P.pending('DELETE', '/bets/alice');
  assert.ok(del, 'the cancel is sent');
  // the cancel (s+2) and her other tab's new slip (s+3) are pushed before the DELETE answers
  P.push.onEvents([{ seq: s + 2, type: 'bet_cancelled', at: state.at, data: { bettor_id: 'alice' } },
    bet(s + 3, 'alice', 'player', 300)]);
  assert.equal(P.seatLines(1).length, 1);
  await P.answer(del, 200, { ...slipOf(state, 0, 'banker', 0), seats: {}, total: 0 });
  assert.equal(P.seatLines(1).length, 1, 'the newer slip is still drawn');
});

test('the page: a cancel answered once the next window opened leaves that window\'s draft', async () => {
  const { P, state } = await live();
  const s = state.seq;
  P.push.onEvents([bet(s + 1, 'alice', 'banker', 100)]);
  await P.click('cancel');
  const del = P.pending('DELETE', '/bets/alice');
  const w = state.book.betting;
  P.push.onEvents([
    { seq: s + 2, type: 'bet_cancelled', at: state.at, data: { bettor_id: 'alice' } },
    { seq: s + 3, type: 'betting_closed', at: state.at, data: {} },
    { seq: s + 4, type: 'betting_opened', at: state.at, data: { shoe_id: w.shoe_id, round_number: w.round_number + 1, closes_at: w.closes_at } },
  ]);
  await P.stake('player'); // her draft for the new window
  assert.equal(P.byId('slip-status').dataset.state, 'draft');
  await P.answer(del, 200, { table_id: state.table_id, betting: w, seats: {}, spectators: {}, total: 0 });
  assert.equal(P.byId('slip-status').dataset.state, 'draft', 'the new window\'s draft is kept');
});

test('the page: a snapshot read before an answered confirm keeps the confirmed slip drawn', async () => {
  const { P, state } = await live();
  await P.stake('banker');
  await P.click('confirm');
  const put = P.pending('PUT', '/bets/alice');
  const stake = JSON.parse(put.body).bets[0];
  await P.answer(put, 200, slipOf(state, state.seq + 1, stake.type, stake.amount));
  assert.equal(P.byId('slip-status').dataset.state, 'confirmed');
  P.push.onSnapshot(openState()); // read at the old seq (say, for her balance), answered now
  assert.equal(P.byId('slip-status').dataset.state, 'confirmed');
  assert.equal(P.seatLines(1).length, 1);
});

test('the page: a chat line sent while a confirm is in flight is sent, not dropped', async () => {
  const { P } = await live();
  await P.stake('banker');
  await P.click('confirm');
  assert.ok(P.pending('PUT', '/bets/alice'));
  P.byId('chat-input').value = 'gl';
  await P.click('chat-form');
  assert.ok(P.pending('POST', '/chat'), 'the chat post is sent beside the confirm');
});

test('the page: the table\'s buttons are disabled as soon as an action is sent, until its answer', async () => {
  const { P, state } = await live();
  await P.stake('banker');
  assert.equal(P.byId('confirm').disabled, false);
  await P.click('confirm');
  const put = P.pending('PUT', '/bets/alice');
  assert.ok(put);
  assert.equal(P.byId('confirm').disabled, true, 'no second confirm while the first is out');
  assert.equal(P.byId('open').disabled, true);
  const stake = JSON.parse(put.body).bets[0];
  await P.answer(put, 200, slipOf(state, state.seq + 1, stake.type, stake.amount));
  assert.equal(P.byId('cancel').disabled, false);
  await P.click('cancel');
  assert.ok(P.pending('DELETE', '/bets/alice'));
  assert.equal(P.byId('cancel').disabled, true, 'no second cancel while the first is out');
});

test('the page: the chat input keeps what was typed since sending; a second line waits for the first', async () => {
  const { P, state } = await live();
  const input = P.byId('chat-input');
  input.value = 'gl';
  await P.click('chat-form');
  const post = P.pending('POST', '/chat');
  assert.deepEqual(JSON.parse(post.body), { text: 'gl' });
  assert.equal(P.byId('chat-send').disabled, true, 'send is disabled while a line is out');
  input.value = 'gl all'; // typed while the first was out
  await P.answer(post, 201, { message_id: 'ch_9', bettor_id: 'alice', text: 'gl', at: state.at });
  assert.equal(input.value, 'gl all', 'what was typed since is kept');
  assert.equal(P.byId('chat-send').disabled, false);
  assert.deepEqual(P.chatShown(), ['ch_9']);
  await P.click('chat-form');
  const second = P.pending('POST', '/chat');
  assert.deepEqual(JSON.parse(second.body), { text: 'gl all' });
  await P.answer(second, 201, { message_id: 'ch_10', bettor_id: 'alice', text: 'gl all', at: state.at });
  assert.equal(input.value, '', 'the line sent, untouched since, is cleared');
});

test('the page: a chat line sent just after a refused confirm leaves the refusal shown', async () => {
  const { P, state } = await live();
  await P.stake('banker');
  await P.click('confirm');
  await P.answerPending('PUT', '/bets/alice', 409, { error: { code: 'betting_closed', message: 'closed' } });
  assert.equal(P.byId('error').dataset.code, 'betting_closed');
  const refusal = P.byId('error').textContent;
  P.byId('chat-input').value = 'unlucky';
  await P.click('chat-form');
  await P.answerPending('POST', '/chat', 201, { message_id: 'ch_9', bettor_id: 'alice', text: 'unlucky', at: state.at });
  assert.equal(P.byId('error').textContent, refusal);
  // the table's next action clears it
  await P.stake('banker');
  await P.click('confirm');
  assert.equal(P.byId('error').textContent, '');
});

// The lobby page (web/lobby.js) under Node: the page script itself, run in a fake browser — a
// minimal DOM, a fetch whose answers the test releases in the order it chooses, the 5 s timer
// fired by hand (no sleeping). What the person is promised: the tables as the newest answer
// lists them, every page they asked for ("More tables") kept across the refreshes, each table
// once. Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const SOURCE = fs.readFileSync(path.join(__dirname, '..', 'lobby.js'), 'utf8');
const API = 'https://api.example';

const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

function node(tag) {
  const n = {
    tag, children: [], dataset: {}, className: '', textContent: '', hidden: false, listeners: {},
    appendChild(c) { n.children.push(c); return c; },
    replaceChildren(...c) { n.children = c; },
    addEventListener(type, fn) { n.listeners[type] = fn; },
  };
  return n;
}

function table(id, phase = 'idle') {
  return {
    table_id: id, number: Number(id.slice(1)), name: null, phase, profile: 'star-city',
    tier_name: 'Fun', tier_name_zh: '娛樂', ratio: '1', currency: 'TWD', minor_unit_exponent: 0,
    limits: { min_bet: 100, table_max: null }, chips: [100], seats_taken: 0, banking: 'house',
    banker: null, spectators: 0, watchers: 0, shoe: null,
  };
}

/** The lobby page in a fake browser: `requests` are the reads in flight (answer them with
 * `answer(i, body | 304)`), `tick()` fires the 5 s refresh, `shown()` the table cards drawn. */
function lobby() {
  const ids = { status: node('div'), tables: node('div'), more: node('button') };
  const requests = [];
  let interval = null;
  let timers = []; // the page's one-shot timers (a read's deadline), fired by `elapse`
  let now = 0;
  const json = (status, body, etag) => ({
    status, ok: status >= 200 && status < 300,
    headers: { get: (k) => (k.toLowerCase() === 'etag' ? etag : null) },
    json: async () => body,
  });
  const context = {
    URLSearchParams, URL, console,
    window: {
      location: { hash: `#token=lt_x&api=${encodeURIComponent(API)}`, origin: API },
      setInterval: (fn) => { interval = fn; return 1; },
      setTimeout: (fn, ms) => { const t = { at: now + ms, fn }; timers.push(t); return t; },
      clearTimeout: (t) => { timers = timers.filter((x) => x !== t); },
    },
    AbortController,
    document: { getElementById: (id) => ids[id], createElement: node },
    fetch: (url, init) => new Promise((resolve, reject) => {
      const r = { url: new URL(url), headers: init.headers, resolve, done: false };
      requests.push(r);
      // as a browser's fetch: an abort rejects the request still out
      init.signal?.addEventListener('abort', () => {
        if (r.done) return;
        r.done = true;
        reject(init.signal.reason);
      });
    }),
  };
  vm.runInNewContext(SOURCE, context);
  return {
    requests,
    inFlight: () => requests.filter((r) => !r.done),
    async answer(r, body, etag = `"${JSON.stringify(body).length}"`) {
      r.done = true;
      r.resolve(body === 304 ? json(304, null) : json(200, body, etag));
      await flush();
    },
    /** Answer every read as `by(after)` says, until none is out (`after`: null for the first page). */
    async serve(by) {
      for (let n = 0; n < 10 && requests.some((r) => !r.done); n++) {
        const r = requests.find((x) => !x.done);
        await this.answer(r, by(r.url.searchParams.get('after'), r));
      }
    },
    async tick() {
      interval();
      await flush();
    },
    /** `ms` pass: the page's timers due by then fire. */
    async elapse(ms) {
      now += ms;
      for (const t of timers.filter((x) => x.at <= now)) {
        timers = timers.filter((x) => x !== t);
        t.fn();
      }
      await flush();
    },
    status: () => ids.status.textContent,
    click: async () => {
      ids.more.listeners.click();
      await flush();
    },
    shown: () => ids.tables.children.map((c) => `${c.dataset.tableId}:${c.children[0].children[1].textContent.split(' ')[0]}`),
    moreShown: () => !ids.more.hidden,
  };
}

const page = (tables, next = null) => ({ tables, next });

test('a refresh slower than the 5 s timer: never two reads at once, never an older answer over a newer', async () => {
  const L = lobby();
  await flush();
  await L.answer(L.requests[0], page([table('t1', 'idle')]));
  assert.deepEqual(L.shown(), ['t1:Idle']);
  await L.tick(); // a slow answer (a loaded network) …
  const slow = L.inFlight()[0];
  await L.tick(); // … still out when the timer fires again
  assert.equal(L.inFlight().length, 1, 'the second refresh waits for the first');
  await L.answer(slow, page([table('t1', 'betting')]));
  // the refresh asked for meanwhile reads again, after it
  const again = L.inFlight();
  assert.equal(again.length, 1);
  await L.answer(again[0], page([table('t1', 'in_round')]));
  assert.deepEqual(L.shown(), ['t1:In']);
  assert.equal(L.inFlight().length, 0);
});

test('the pages shown with "More tables" are kept (and read again) when the first page changes', async () => {
  const L = lobby();
  await flush();
  await L.answer(L.requests[0], page([table('t1'), table('t2')], 'c2'));
  assert.equal(L.moreShown(), true);
  await L.click();
  const asked = [];
  await L.serve((after, r) => {
    asked.push(after);
    return after === 'c2' ? page([table('t3')]) : r.headers['if-none-match'] ? 304 : page([table('t1'), table('t2')], 'c2');
  });
  assert.ok(asked.includes('c2'));
  assert.deepEqual(L.shown(), ['t1:Idle', 't2:Idle', 't3:Idle']);
  assert.equal(L.moreShown(), false);
  // 5 s later the first page has changed (a phase moved): the second page is still there,
  // and it is read again too (its tables' phases move as well)
  await L.tick();
  await L.serve((after) => (after === 'c2' ? page([table('t3', 'betting')]) : page([table('t1', 'betting'), table('t2')], 'c2')));
  assert.deepEqual(L.shown(), ['t1:Betting', 't2:Idle', 't3:Betting']);
});

test('"More tables" clicked twice before its answer adds that page once', async () => {
  const L = lobby();
  await flush();
  await L.answer(L.requests[0], page([table('t1')], 'c1'));
  await L.click();
  await L.click();
  await L.serve((after, r) => (after === 'c1' ? page([table('t2')]) : r.headers['if-none-match'] ? 304 : page([table('t1')], 'c1')));
  assert.deepEqual(L.shown(), ['t1:Idle', 't2:Idle']);
});

test('an unchanged first page is a 304; the tables stay', async () => {
  const L = lobby();
  await flush();
  await L.answer(L.requests[0], page([table('t1')]), '"e1"');
  await L.tick();
  const r = L.inFlight()[0];
  assert.equal(r.headers['if-none-match'], '"e1"');
  await L.answer(r, 304);
  assert.deepEqual(L.shown(), ['t1:Idle']);
});

test('a read that never answers is given up after LOAD_TIMEOUT_MS: the error is shown, the refreshes go on', async () => {
  const L = lobby();
  await flush();
  await L.answer(L.requests[0], page([table('t1')]));
  await L.tick(); // this read stalls (a dead connection): never answered
  for (let i = 0; i < 3; i++) await L.tick(); // the timer fires meanwhile: one read at a time
  assert.equal(L.inFlight().length, 1);
  await L.elapse(9_999);
  assert.equal(L.requests.length, 2, 'not given up before its deadline');
  await L.elapse(1);
  assert.match(L.status(), /could not be read: no answer in 10 s/);
  assert.deepEqual(L.shown(), ['t1:Idle'], 'what is shown stays');
  // the refresh asked for while it was out reads again at once
  assert.equal(L.requests.length, 3);
  await L.answer(L.inFlight()[0], page([table('t1', 'betting')]));
  assert.deepEqual(L.shown(), ['t1:Betting']);
  assert.equal(L.status(), '1 tables');
  await L.tick();
  assert.equal(L.requests.length, 4, 'later refreshes read again');
});

// The table page's model under Node (web/table-state.js): a state snapshot with the table's
// events after it applied draws what the state read after them draws — for every snapshot and
// every later read of rounds of both seeds with squeezes, played by the service
// (tests/unit/test_table_page_reducer.py writes the fixture; TABLE_EVENTS_FIXTURE names a fresh
// one, else web/test/table-events.json). Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const T = require('../table-state.js');

const FIXTURE = process.env.TABLE_EVENTS_FIXTURE || path.join(__dirname, 'table-events.json');
const { cases } = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));

/** The state after `start` with every event up to `seq` applied. */
function replay(start, events, seq) {
  return events.filter((e) => e.seq <= seq).reduce(T.apply, start);
}

for (const c of cases) {
  test(`${c.seed}: every snapshot plus the events after it draws every later state`, () => {
    let pairs = 0;
    for (let i = 0; i < c.states.length; i++) {
      for (let j = i; j < c.states.length; j++) {
        const got = replay(c.states[i], c.events, c.states[j].seq);
        assert.deepEqual(T.drawn(got), T.drawn(c.states[j]), `from seq ${c.states[i].seq} to ${c.states[j].seq}`);
        pairs += 1;
      }
    }
    assert.ok(pairs > 100 && c.events.some((e) => e.type === 'squeeze_revealed' && e.data.by === 'system'));
  });

  test(`${c.seed}: an event applied twice, or one the snapshot holds, changes nothing`, () => {
    const start = c.states[0];
    const once = c.events.reduce(T.apply, start);
    const twice = c.events.reduce(T.apply, once);
    assert.deepEqual(twice, once);
    const mid = c.states[Math.floor(c.states.length / 2)];
    assert.equal(c.events.filter((e) => e.seq <= mid.seq).reduce(T.apply, mid), mid);
  });

  test(`${c.seed}: no event moves the round before the state shows it (cards, result, count)`, () => {
    for (const state of c.states) {
      const got = replay(c.states[0], c.events, state.seq);
      const shown = (s) => (s.round ? s.round.cards.filter((x) => x.code).map((x) => x.code) : []);
      assert.deepEqual(shown(got), shown(state));
      assert.equal(got.round ? got.round.result : null, state.round ? state.round.result : null);
    }
  });
}

test('apply is pure: the state given is never changed', () => {
  const c = cases[0];
  const start = JSON.parse(JSON.stringify(c.states[0]));
  const frozen = JSON.stringify(start);
  c.events.reduce(T.apply, start);
  assert.equal(JSON.stringify(start), frozen);
});

test('a step of an earlier round reported after the next deal moves the shoe, not the round shown', () => {
  const cell = { col: 0, row: 0, round: 1, result: 'banker', colour: 'red', totals: [7],
    player_total: 3, banker_total: 7, player_pair: false, banker_pair: false, dots: [] };
  const state = {
    seq: 10, seats: {}, watchers: [], book: null, you: null, round: { round_id: 's_r2', status: 'dealt', squeeze: null },
    shoe: { shoe_id: 's', rounds_dealt: 2, cards_remaining: 200, history: [], roads: { bead_plate: { rows: 6, cells: [] } } },
  };
  const event = { seq: 11, type: 'squeeze_revealed', at: '2026-01-01T00:00:00.000Z', data: {
    round_id: 's_r1', step: 'draws', by: 'system', round: { round_id: 's_r1', status: 'dealt' },
    shoe: { shoe_id: 's', rounds_dealt: 2, cards_remaining: 199, last: cell },
  } };
  const after = T.apply(state, event);
  assert.equal(after.round.round_id, 's_r2');
  assert.deepEqual(after.shoe.roads.bead_plate.cells, [cell]);
  assert.equal(after.shoe.history.length, 1);
  assert.equal(after.shoe.cards_remaining, 199);
  assert.equal(after.seq, 11);
});

test('bacc-pf-v2: a lock shows the beacon round awaited; a beacon void tells the page, then the next window clears it', () => {
  const beacon = { chain_hash: 'c9'.repeat(32), round: 77, expected_at: '2026-01-01T00:00:05.000Z' };
  const state = {
    seq: 5, seats: {}, watchers: [], you: null, round: null, fairness: 'bacc-pf-v2', locked: null,
    book: { betting: { shoe_id: 's', round_number: 1, status: 'closed' }, seats: {}, spectators: {}, total: 0 },
    shoe: { shoe_id: 's', rounds_dealt: 0, cards_remaining: 416, history: [], roads: { bead_plate: { rows: 6, cells: [] } } },
  };
  const lock = { seq: 6, type: 'round_locked', data: { round_id: 's_r1', shoe_id: 's', round_number: 1,
    locked_at: '2026-01-01T00:00:00.000Z', book_root: 'ab'.repeat(32), beacon } };
  const after = T.apply(state, lock);
  assert.equal(after.phase, 'locked');
  assert.equal(after.deadline, beacon.expected_at);
  assert.deepEqual(T.drawn(after).locked, { round_number: 1, beacon });
  assert.equal(after.book.betting.status, 'dealt');
  const voided = T.apply(after, { seq: 7, type: 'round_voided', data: { round_id: 's_r1', reason: 'beacon_unavailable', beacon_round: 77 } });
  assert.equal(voided.locked, null);
  assert.deepEqual(voided.beacon_void, { round_number: 1, beacon_round: 77 });
  assert.equal(voided.shoe.rounds_dealt, 1);
  assert.equal(voided.shoe.cards_remaining, 416); // no card was drawn
  const next = T.apply(voided, { seq: 8, type: 'betting_opened', data: { shoe_id: 's', round_number: 2, closes_at: '2026-01-01T00:00:45.000Z' } });
  assert.equal(next.beacon_void, null);
});

test("a confirm's answer read before another person's slip arrived never takes that slip away", () => {
  // alice's confirm and bob's land together; bob's bet_placed is pushed before alice's HTTP
  // answer (a book without bob's slip) reaches her page — the race of a CI run: bob's slip
  // vanished from alice's seat 2 until the next event
  const window = { shoe_id: 's', round_number: 2, closes_at: '2026-01-01T00:00:06.000Z', status: 'open' };
  const state = {
    seq: 20, watchers: [], round: null, you: { bettor_id: 'alice', place: 'seat 1' },
    seats: { 1: { bettor_id: 'alice' }, 2: { bettor_id: 'bob' } },
    book: { table_id: 't', betting: window, seats: {}, spectators: {}, total: 0 },
  };
  const alice = { bettor_id: 'alice', seat: 1, bets: [{ type: 'banker', amount: 100 }], total: 100 };
  const bob = { type: 'bet_placed', seq: 21, data: { bettor_id: 'bob', total: 1200,
    lines: [{ type: 'player', amount: 1000 }, { type: 'player_pair', amount: 200 }] } };
  const pushed = T.apply(state, bob);
  const answer = { table_id: 't', betting: window, seats: { 1: alice }, spectators: {}, total: 100 };
  const after = T.answered(pushed, answer);
  assert.deepEqual(Object.keys(after.book.seats).sort(), ['1', '2']);
  assert.equal(after.book.seats[2].bets.length, 2);
  assert.deepEqual(after.book.seats[1], alice);
  assert.equal(after.book.total, 1300);
  // the answer first, then bob's event: the same book
  assert.deepEqual(T.apply(T.answered(state, answer), bob).book, after.book);
  // a cancel's answer (no slip of alice's) removes hers alone
  const cancelled = T.answered(after, { ...answer, seats: {}, total: 0 });
  assert.deepEqual(Object.keys(cancelled.book.seats), ['2']);
  assert.equal(cancelled.book.total, 1200);
  // an answer of another window changes nothing
  const old = { ...answer, betting: { ...window, round_number: 1 }, seats: {} };
  assert.equal(T.answered(after, old), after);
});

// --- an HTTP answer against the events: the newer one wins ---------------------------------------

const W2 = { shoe_id: 's', round_number: 2, closes_at: '2026-01-01T00:00:06.000Z', status: 'open' };
const seated = (seq, slips = {}) => ({
  seq, watchers: [], round: null, you: { bettor_id: 'alice', place: 'seat 1' },
  seats: { 1: { bettor_id: 'alice' }, 2: { bettor_id: 'bob' } },
  book: { table_id: 't', betting: W2, seats: slips, spectators: {}, total: 0 },
});
const placed = (seq, bettor, amount, type = 'banker') => ({ type: 'bet_placed', seq,
  data: { bettor_id: bettor, total: amount, lines: [{ type, amount }] } });
const aliceSlip = (order, amount, type = 'banker') => ({ bettor_id: 'alice', role: 'seat', seat: 1,
  bets: [{ type, amount, order }], total: amount, placed_at: 'x', order });
const book = (seats) => ({ table_id: 't', betting: W2, seats, spectators: {}, total: 0 });
const own = (s) => T.drawn(s).slips.seats[1] || null;

test("a confirm's answer older than the events applied never brings back what they changed", () => {
  // alice's confirm is bet_placed 21; her balance reported at once cancels it (22, in the same
  // change as seat_updated); both are pushed before the PUT's answer reaches her page
  let s = seated(20);
  s = T.apply(s, placed(21, 'alice', 500));
  s = T.apply(s, { type: 'bet_cancelled', seq: 22, data: { bettor_id: 'alice', reason: 'insufficient_balance' } });
  const after = T.answered(s, book({ 1: aliceSlip(21, 500) }), seated(20));
  assert.equal(own(after), null); // the cancel stands
  // her other tab confirmed a new slip (23) after this one (21): the newer slip stays
  let t = T.apply(seated(20), placed(21, 'alice', 500));
  t = T.apply(t, placed(22, 'alice', 900, 'player'));
  assert.deepEqual(own(T.answered(t, book({ 1: aliceSlip(21, 500) }), seated(20))).bets, [['player', 900]]);
  // an answer newer than the events applied still shows at once (its event follows)
  const ahead = T.answered(seated(20), book({ 1: aliceSlip(21, 500) }), seated(20));
  assert.deepEqual(own(ahead).bets, [['banker', 500]]);
  assert.deepEqual(T.drawn(T.apply(ahead, placed(21, 'alice', 500))), T.drawn(T.apply(seated(20), placed(21, 'alice', 500))));
});

test("a cancel's answer never removes a slip confirmed after the cancel was sent", () => {
  const shown = T.apply(seated(20), placed(21, 'alice', 500)); // what alice saw when she cancelled
  // the cancel is 22; her other tab confirms again at 23; both pushed before the DELETE answers
  let s = T.apply(shown, { type: 'bet_cancelled', seq: 22, data: { bettor_id: 'alice' } });
  s = T.apply(s, placed(23, 'alice', 700));
  assert.deepEqual(own(T.answered(s, book({}), shown)).bets, [['banker', 700]]);
  // the answer first: the slip she cancelled goes at once
  assert.equal(own(T.answered(shown, book({}), shown)), null);
});

test('a snapshot read before a confirm that was answered first keeps the answered slip', () => {
  // alice's PUT (bet_placed 21) answered; a state read before it (seq 20: a refresh for her
  // balance) arrives after the answer — her slip stays until its event, which follows
  const answered = T.answered(seated(20), book({ 1: aliceSlip(21, 500) }), seated(20));
  const snap = T.snapshot(answered, { ...seated(20), phase: 'betting', deadline: W2.closes_at });
  assert.deepEqual(own(snap).bets, [['banker', 500]]);
  // a snapshot at or after the slip's event holds the service's own view: it is taken as it is
  const later = { ...seated(22), phase: 'betting', deadline: W2.closes_at };
  assert.deepEqual(T.snapshot(answered, later), later);
  assert.deepEqual(T.snapshot(null, later), later);
});

test('chat: a line removed is never shown again, whether a late /chat read or push brings it', () => {
  const chat = T.makeChat();
  const m = (id, at) => ({ message_id: id, bettor_id: 'a', text: id, at });
  assert.equal(chat.add(m('ch_2', '2')), true);
  assert.equal(chat.add(m('ch_1', '1')), true);
  assert.equal(chat.add(m('ch_1', '1')), false); // by push and by the read: once
  assert.deepEqual(chat.list().map((x) => x.message_id), ['ch_1', 'ch_2']);
  assert.equal(chat.remove('ch_2'), true);
  // a /chat read answered after chat_message_deleted (read before it), or the line's push late
  assert.equal(chat.add(m('ch_2', '2')), false);
  assert.deepEqual(chat.list().map((x) => x.message_id), ['ch_1']);
  // removed before it arrived at all
  assert.equal(chat.remove('ch_3'), false);
  assert.equal(chat.add(m('ch_3', '3')), false);
  assert.deepEqual(chat.list().map((x) => x.message_id), ['ch_1']);
});

test('a snapshot of another window never gets the answered slip of the window before', () => {
  const answered = T.answered(seated(20), book({ 1: aliceSlip(21, 500) }), seated(20));
  // read before the slip's event (seq 20 < its order 21), yet of the next window (say, the
  // service's view after a void and a reopen): alice's slip belongs to the window it was confirmed in
  const W3 = { ...W2, round_number: 3 };
  const next = { ...seated(20), book: { table_id: 't', betting: W3, seats: {}, spectators: {}, total: 0 } };
  const snap = T.snapshot(answered, next);
  assert.deepEqual(snap.book.seats, {});
  assert.equal(own(snap), null);
});

test('a snapshot read before an answered cancel does not bring the cancelled slip back', () => {
  const shown = T.apply(seated(20), placed(21, 'alice', 500)); // what alice saw when she cancelled
  const cancelled = T.answered(shown, book({}), shown); // the DELETE answered: gone at once
  assert.equal(own(cancelled), null);
  // a state read before the cancel (at seq 21: her slip still in it) arrives after the answer
  const stale = { ...T.apply(seated(20), placed(21, 'alice', 500)), phase: 'betting', deadline: W2.closes_at };
  assert.deepEqual(own(stale).bets, [['banker', 500]]);
  const snap = T.snapshot(cancelled, stale);
  assert.equal(own(snap), null, 'the cancelled slip stays gone until its event');
  assert.equal(snap.book.total, 0);
  // … and so does a second such read; then its event: the same drawing as without the answer
  const again = T.snapshot(snap, stale);
  assert.equal(own(again), null);
  const evented = T.apply(again, { type: 'bet_cancelled', seq: 22, data: { bettor_id: 'alice' } });
  assert.deepEqual(T.drawn(evented), T.drawn(T.apply(shown, { type: 'bet_cancelled', seq: 22, data: { bettor_id: 'alice' } })));
  // a slip confirmed after the cancel (another tab: a newer order) is the service's: it shows
  const newer = { ...T.apply(stale, placed(23, 'alice', 700)), phase: 'betting', deadline: W2.closes_at };
  assert.deepEqual(own(T.snapshot(cancelled, newer)).bets, [['banker', 700]]);
  // a snapshot of the next window is taken as it is
  const W3 = { ...W2, round_number: 3 };
  const next = { ...seated(24), book: { table_id: 't', betting: W3, seats: { 1: aliceSlip(25, 100) }, spectators: {}, total: 100 } };
  assert.deepEqual(T.snapshot(cancelled, next), next);
});

test('chat: at most CHAT_MAX lines and removals are kept, the oldest dropped first', () => {
  const chat = T.makeChat();
  const m = (i) => ({ message_id: `ch_${i}`, bettor_id: 'a', text: String(i), at: String(i).padStart(6, '0') });
  for (let i = 1; i <= T.CHAT_MAX + 50; i++) chat.add(m(i));
  const shown = chat.list().map((x) => x.message_id);
  assert.equal(shown.length, T.CHAT_MAX);
  assert.equal(shown[0], 'ch_51');
  assert.equal(shown.at(-1), `ch_${T.CHAT_MAX + 50}`);
  for (let i = 1; i <= T.CHAT_MAX + 50; i++) chat.remove(`x_${i}`); // removals of lines never seen
  assert.equal(chat.sizes().gone, T.CHAT_MAX);
  assert.equal(chat.add({ ...m(1), message_id: `x_${T.CHAT_MAX + 50}` }), false, 'the newest removals are still kept');
  assert.equal(chat.add({ ...m(1), message_id: 'x_1' }), true, 'the oldest removal was dropped');
});

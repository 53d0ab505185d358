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

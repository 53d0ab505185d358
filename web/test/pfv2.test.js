// bacc-pf-v2's draw in JavaScript (web/bacc-pf-v2.js) against the spec's vectors
// (tests/vectors/v2.json, the blocks of docs/bacc-pf-v2.md). Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const V2 = require('../bacc-pf-v2.js');

const VECTORS = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'tests', 'vectors', 'v2.json'), 'utf8'),
);
const inputsOf = (shoe) =>
  shoe.rounds.map((r) => ({ book_root: r.book_root, beacon: r.beacon }));
const derive = (shoe, rounds = inputsOf(shoe), untilEnd = false) =>
  V2.deriveShoe({
    server_seed: shoe.server_seed,
    shoe_number: shoe.shoe_number,
    client_seed: shoe.client_seed,
    rules: shoe.rules,
    rounds,
    untilEnd,
  });

for (const shoe of VECTORS.shoes) {
  test(`vector ${shoe.name}: K, cut card, burn, every round key and card, the shoe`, async () => {
    const ours = await derive(shoe);
    assert.equal(ours.key, shoe.key);
    assert.equal(ours.cut_index, shoe.cut_index);
    assert.equal(ours.burn_exposed, shoe.burn_exposed);
    assert.deepEqual(ours.burned, shoe.burned);
    assert.equal(ours.ended_by_rules, shoe.ended_by_rules);
    assert.deepEqual(ours.card_ids, shoe.card_ids);
    assert.equal(ours.cards_drawn, shoe.cards_drawn);
    assert.equal(ours.rounds.length, shoe.rounds.length);
    for (const [i, want] of shoe.rounds.entries()) {
      const got = ours.rounds[i];
      assert.equal(got.round_number, want.round_number);
      if (want.beacon === null) {
        assert.equal(got.beacon, null);
        continue;
      }
      for (const k of ['key', 'start', 'player', 'banker', 'result']) {
        assert.deepEqual(got[k], want[k], `round ${want.round_number}: ${k}`);
      }
    }
  });
}

test('a whole shoe is one permutation of its decks', () => {
  for (const shoe of VECTORS.shoes) {
    const ids = [...shoe.card_ids].sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 52 * shoe.rules.decks }, (_, i) => i));
  }
});

test('K_1 of the guesses is the right one; the guessed keys differ', async () => {
  const shoe = VECTORS.shoes[0];
  const r1 = shoe.rounds[0];
  assert.equal(await V2.roundKey(shoe.key, 1, r1.book_root, r1.beacon), VECTORS.guesses.K_1);
  for (const [name, value] of Object.entries(VECTORS.guesses)) {
    if (name.startsWith('K_1') || !/^[0-9a-f]{64}$/.test(value)) continue;
    assert.notEqual(value, VECTORS.guesses.K_1, name);
  }
});

test('a round past the end is refused, or left unread with untilEnd', async () => {
  const shoe = VECTORS.shoes[1]; // ended by its round limit
  const extra = [...inputsOf(shoe), inputsOf(shoe)[0]];
  await assert.rejects(derive(shoe, extra), /ended after round/);
  assert.deepEqual((await derive(shoe, extra, true)).card_ids, shoe.card_ids);
});

test('changing a book root or a signature changes that round and nothing before', async () => {
  const shoe = VECTORS.shoes[0];
  const base = inputsOf(shoe);
  const flip = (hex) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);
  const cases = [
    base.map((r, i) => (i === 1 ? { ...r, book_root: flip(r.book_root) } : r)),
    base.map((r, i) =>
      i === 1 ? { ...r, beacon: { ...r.beacon, signature: flip(r.beacon.signature) } } : r,
    ),
    base.map((r, i) => (i === 1 ? { ...r, beacon: { ...r.beacon, round: r.beacon.round + 1 } } : r)),
  ];
  for (const rounds of cases) {
    const got = await derive(shoe, rounds);
    assert.deepEqual(got.rounds[0].player, shoe.rounds[0].player);
    assert.notEqual(got.rounds[1].key, shoe.rounds[1].key);
    assert.notDeepEqual(
      [got.rounds[1].player, got.rounds[1].banker],
      [shoe.rounds[1].player, shoe.rounds[1].banker],
    );
  }
});

test('inputs that do not encode are refused', async () => {
  const shoe = VECTORS.shoes[0];
  const r1 = shoe.rounds[0];
  await assert.rejects(V2.roundKey(shoe.key, 0, r1.book_root, r1.beacon), /round number/);
  await assert.rejects(V2.roundKey(shoe.key, 1, r1.book_root.slice(2), r1.beacon), /book root/);
  await assert.rejects(
    V2.roundKey(shoe.key, 1, r1.book_root, { ...r1.beacon, round: -1 }),
    /u64/,
  );
  await assert.rejects(
    V2.roundKey(shoe.key, 1, r1.book_root, { ...r1.beacon, signature: '' }),
    /signature/,
  );
});

test('book roots: nobody bet, and two seated bettors with a spectators\' book', async () => {
  const b = VECTORS.book_roots;
  assert.equal(await V2.lockedRoot(V2.EMPTY_ROOT, V2.EMPTY_ROOT), b.no_bets);
  assert.equal(await V2.lockedRoot(b.seated_root, b.spectators_root), b.book_root);
  assert.notEqual(await V2.lockedRoot(b.spectators_root, b.seated_root), b.book_root);
  assert.equal(V2.EMPTY_ROOT, b.empty);
  assert.equal(VECTORS.shoes[0].rounds[0].book_root, b.no_bets);
  assert.equal(VECTORS.shoes[0].rounds[1].book_root, b.book_root);
});

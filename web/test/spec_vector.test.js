// Known-answer vector of docs/rules/fairness-v1.md, plus structural properties of the shoe.
// Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const BaccPF = require('../bacc-pf-v1.js');

const PHRASE = 'bacc-pf-v1 example chain secret - never use in production';
const S10 = '0aee648d33179fe6a0b97141dc549e510444876e8065745709cca0bfb6edbd49';
const ANCHOR = 'cdde3d9965e506c2da1abc8577df22cbd6776269c294cd943e87bb7d44781d9a';
const S1 = 'bc0d405a0361266fe6e6cee0ed4d5370cb4dfecffac340c17ee0bf1aaf2aca7b';
const CLIENT_SEED = 'operator-7:table-12:shoe-seed';
const BID_SQUEEZE = { decks: 8, burn: 1, cut_min: 14, cut_max: 26, round_limit: 0 };
const STAR_CITY = { decks: 4, burn: 0, cut_min: 0, cut_max: 0, round_limit: 30 };
const CLIENT_HASH = 'b8fbb059f1b0269d422b6b6e2a7b0b9b4f31e02ec402e85e0277549532dfcc1b';
const K = '3822612b8d050edcc8c4ed0bc6547eaad2a0e61aabbdec4de1d1f0a104ec61fe';
const BLOCK_0 = '2f702b340b6c94d287901f4baaf3f3fe7b4f70f01ad48951110dd5bd31b5b910';

const vectorShoe = () =>
  BaccPF.deriveShoe({
    server_seed: S1,
    shoe_number: 1,
    client_seed: CLIENT_SEED,
    rules: BID_SQUEEZE,
  });

// ------------------------------------------------------------------------------------------------
// The spec's known-answer vector

test('s_10 = H(example phrase)', async () => {
  const s10 = BaccPF.toHex(await BaccPF.sha256(new TextEncoder().encode(PHRASE)));
  assert.equal(s10, S10);
});

test('chain: s_10 walks to s_1 in 9 steps and to the anchor in 10', async () => {
  assert.equal(await BaccPF.chainWalk(S10, 9), S1);
  assert.equal(await BaccPF.chainWalk(S10, 10), ANCHOR);
  assert.equal(BaccPF.toHex(await BaccPF.chainStep(BaccPF.fromHex(S1))), ANCHOR);
});

test('verifyLink accepts the right links and rejects wrong ones', async () => {
  assert.equal(await BaccPF.verifyLink(S1, 1, ANCHOR), true);
  assert.equal(await BaccPF.verifyLink(S10, 10, ANCHOR), true);
  assert.equal(await BaccPF.verifyLink(S1.toUpperCase(), 1, ANCHOR), true);
  assert.equal(await BaccPF.verifyLink(S1, 2, ANCHOR), false);
  assert.equal(await BaccPF.verifyLink(S10, 9, ANCHOR), false);
  assert.equal(await BaccPF.verifyLink(ANCHOR, 1, ANCHOR), false);
  await assert.rejects(BaccPF.verifyLink(S1, 0, ANCHOR));
  await assert.rejects(BaccPF.verifyLink(S1.slice(2), 1, ANCHOR));
});

test('client_hash', async () => {
  assert.equal(await BaccPF.clientHash(CLIENT_SEED), CLIENT_HASH);
});

test('K (per-shoe key)', async () => {
  assert.equal(BaccPF.toHex(BaccPF.rulesBytes(BID_SQUEEZE)), '08010e1a0000');
  assert.equal(await BaccPF.shoeKey(S1, CLIENT_HASH, 1, BID_SQUEEZE), K);
});

test('block_0', async () => {
  assert.equal(await BaccPF.streamBlock(K, 0), BLOCK_0);
});

test('shoe: first 12 cards, cut index, burn, 78 rounds', async () => {
  const shoe = await vectorShoe();
  assert.equal(shoe.client_hash, CLIENT_HASH);
  assert.deepEqual(shoe.cards.slice(0, 12), 'AS 9C 8D 8D TD 6H QS QS 3H 5C 4S 6C'.split(' '));
  assert.equal(shoe.cut_index, 393);
  assert.equal(shoe.burn_exposed, 'AS');
  assert.equal(shoe.burn, 1);
  assert.equal(shoe.rounds.length, 78);
});

test('shoe: rounds 1, 2 and 78', async () => {
  const { rounds } = await vectorShoe();
  const summary = (r) => ({
    round_number: r.round_number,
    start: r.start,
    player: r.player.join(' '),
    banker: r.banker.join(' '),
    player_total: r.player_total,
    banker_total: r.banker_total,
    result: r.result,
  });
  assert.deepEqual(summary(rounds[0]), {
    round_number: 1,
    start: 2,
    player: '8D TD',
    banker: '8D 6H',
    player_total: 8,
    banker_total: 4,
    result: 'player',
  });
  assert.deepEqual(summary(rounds[1]), {
    round_number: 2,
    start: 6,
    player: 'QS 3H 4S',
    banker: 'QS 5C 6C',
    player_total: 7,
    banker_total: 1,
    result: 'player',
  });
  assert.deepEqual(summary(rounds[77]), {
    round_number: 78,
    start: 393,
    player: '4S 4H',
    banker: '7H 9S',
    player_total: 8,
    banker_total: 6,
    result: 'player',
  });
});

test('uniform boundary words for m = 416', () => {
  assert.equal(BaccPF.uniformLimit(416), 4294967040);
  assert.deepEqual(BaccPF.uniformFromWords([4294967039], 416), { value: 415, consumed: 1 });
  assert.deepEqual(BaccPF.uniformFromWords([4294967040, 5], 416), { value: 5, consumed: 2 });
  assert.throws(() => BaccPF.uniformFromWords([4294967295], 416));
});

// ------------------------------------------------------------------------------------------------
// Properties that hold for every shoe

test('uniform at the extremes of m', () => {
  assert.equal(BaccPF.uniformLimit(1), 4294967296);
  assert.deepEqual(BaccPF.uniformFromWords([4294967295], 1), { value: 0, consumed: 1 });
  assert.equal(BaccPF.uniformLimit(2 ** 32), 4294967296);
  assert.deepEqual(BaccPF.uniformFromWords([4294967295], 2 ** 32), {
    value: 4294967295,
    consumed: 1,
  });
  // m = 2^31 + 1: limit = 2^32 − (2^31 − 1) = 2^31 + 1, so 2^31 + 1 is rejected.
  const m = 2 ** 31 + 1;
  assert.equal(BaccPF.uniformLimit(m), 2 ** 31 + 1);
  assert.deepEqual(BaccPF.uniformFromWords([2 ** 31 + 1, 2 ** 31], m), {
    value: 2 ** 31,
    consumed: 2,
  });
  assert.throws(() => BaccPF.uniformLimit(0));
  assert.throws(() => BaccPF.uniformLimit(2 ** 32 + 1));
});

test('the shoe is a permutation of D decks and rounds tile the dealt cards', async () => {
  const cases = [
    { decks: 4, burn: 0, cut_min: 0, cut_max: 0, round_limit: 30 },
    { decks: 6, burn: 1, cut_min: 11, cut_max: 40, round_limit: 0 },
    { decks: 8, burn: 1, cut_min: 14, cut_max: 26, round_limit: 0 },
    { decks: 6, burn: 0, cut_min: 20, cut_max: 20, round_limit: 10 },
  ];
  for (const rules of cases) {
    const shoe = await BaccPF.deriveShoe({
      server_seed: S10,
      shoe_number: 10,
      client_seed: 'Zürich ♠ 🂡',
      rules,
    });
    const size = 52 * rules.decks;
    assert.equal(shoe.cards.length, size);
    const counts = new Map();
    for (const code of shoe.cards) counts.set(code, (counts.get(code) || 0) + 1);
    assert.equal(counts.size, 52);
    for (const n of counts.values()) assert.equal(n, rules.decks);

    let cursor = rules.burn ? 1 + shoe.burn : 0;
    const ends = []; // cursor after each round
    for (const r of shoe.rounds) {
      assert.equal(r.start, cursor);
      const dealt = [r.player[0], r.banker[0], r.player[1], r.banker[1]];
      if (r.player[2]) dealt.push(r.player[2]);
      if (r.banker[2]) dealt.push(r.banker[2]);
      assert.deepEqual(dealt, shoe.cards.slice(r.start, r.start + dealt.length));
      cursor += dealt.length;
      ends.push(cursor);
    }
    // The shoe stops after the first round that ends it, and not before.
    const cut = shoe.cut_index;
    const past = (k) => cut !== null && ends[k] > cut;
    const endsAfter = (k) =>
      (rules.round_limit > 0 && k + 1 === rules.round_limit) ||
      (past(k) && shoe.rounds[k].start >= cut) ||
      (k > 0 && past(k - 1) && shoe.rounds[k - 1].start < cut);
    const firstEnd = shoe.rounds.findIndex((_, k) => endsAfter(k));
    assert.equal(firstEnd, shoe.rounds.length - 1);
    if (rules.cut_max) {
      assert.ok(cut >= size - rules.cut_max && cut <= size - rules.cut_min);
    } else {
      assert.equal(cut, null);
      assert.equal(shoe.rounds.length, rules.round_limit);
    }
  }
});

test('star-city profile: 30 rounds, no burn, no cut card', async () => {
  const shoe = await BaccPF.deriveShoe({
    server_seed: S1,
    shoe_number: 1,
    client_seed: '',
    rules: STAR_CITY,
  });
  assert.equal(shoe.rounds.length, 30);
  assert.equal(shoe.rounds[0].start, 0);
  assert.equal(shoe.burn, 0);
  assert.equal(shoe.burn_exposed, null);
  assert.equal(shoe.cut_index, null);
});

test('client seed is used exactly as received', async () => {
  const a = await BaccPF.clientHash('é'); // U+00E9
  const b = await BaccPF.clientHash('e\u0301'); // e + combining acute: no normalisation
  const c = await BaccPF.clientHash(' é');
  assert.notEqual(a, b);
  assert.notEqual(a, c);
  assert.equal(await BaccPF.clientHash(''), BaccPF.toHex(await BaccPF.sha256(
    new TextEncoder().encode('bacc-pf-v1/client'))));
  await assert.rejects(BaccPF.clientHash('\ud800')); // unpaired surrogate: not UTF-8
});

test('invalid configurations and inputs are refused', async () => {
  const base = { server_seed: S1, shoe_number: 1, client_seed: '' };
  const bad = [
    { ...BID_SQUEEZE, cut_min: 10 }, // cut_min < 11 with a cut card
    { ...BID_SQUEEZE, cut_min: 27 }, // cut_min > cut_max
    { ...BID_SQUEEZE, burn: 2 },
    { ...BID_SQUEEZE, decks: 0 },
    { ...STAR_CITY, round_limit: 0 }, // no cut card, no limit: would run out
    { ...STAR_CITY, round_limit: 35 }, // 1 + 10 + 6·35 = 221 > 208
    { ...STAR_CITY, cut_min: 12 }, // cut_min without cut_max
  ];
  for (const rules of bad) await assert.rejects(BaccPF.deriveShoe({ ...base, rules }));
  // The boundary 1 + 10 + 6·R = 52·D is allowed (4 decks: R = 32 gives 203 ≤ 208).
  await BaccPF.deriveShoe({ ...base, rules: { ...STAR_CITY, round_limit: 32 } });
  await assert.rejects(BaccPF.deriveShoe({ ...base, client_seed: 'x'.repeat(257), rules: STAR_CITY }));
  await BaccPF.deriveShoe({ ...base, client_seed: '€'.repeat(85), rules: STAR_CITY }); // 255 bytes
  await assert.rejects(BaccPF.deriveShoe({ ...base, client_seed: '€'.repeat(86), rules: STAR_CITY }));
  await assert.rejects(BaccPF.deriveShoe({ ...base, shoe_number: 0, rules: STAR_CITY }));
  await assert.rejects(BaccPF.deriveShoe({ ...base, server_seed: 'abc', rules: STAR_CITY }));
});

test('the same file loads through ESM import and sets globalThis.BaccPF', async () => {
  const url = pathToFileURL(path.join(__dirname, '..', 'bacc-pf-v1.js')).href;
  const mod = await import(url);
  assert.equal(mod.default.deriveShoe, BaccPF.deriveShoe);
  assert.equal(globalThis.BaccPF, BaccPF);
});

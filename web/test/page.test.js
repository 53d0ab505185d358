// The browser verifier's logic under Node: roads (web/roads.js) and the verdict (web/verify.js).
// Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const BaccPF = require('../bacc-pf-v1.js');
const Roads = require('../roads.js');
const Verify = require('../verify.js');

// The spec's known-answer chain (fairness-v1.md): shoe 1 of the chain whose anchor is published.
const ANCHOR = 'cdde3d9965e506c2da1abc8577df22cbd6776269c294cd943e87bb7d44781d9a';
const S1 = 'bc0d405a0361266fe6e6cee0ed4d5370cb4dfecffac340c17ee0bf1aaf2aca7b';
const S10 = '0aee648d33179fe6a0b97141dc549e510444876e8065745709cca0bfb6edbd49';
const CLIENT_SEED = 'operator-7:table-12:shoe-seed';
const CLIENT_HASH = 'b8fbb059f1b0269d422b6b6e2a7b0b9b4f31e02ec402e85e0277549532dfcc1b';
const BID_SQUEEZE = { decks: 8, burn: 1, cut_min: 14, cut_max: 26, round_limit: 0 };
const STAR_CITY = { decks: 4, burn: 0, cut_min: 0, cut_max: 0, round_limit: 30 };

const clone = (v) => JSON.parse(JSON.stringify(v));
// These proofs are v1 (one object, no signature): accepted as unsigned, their cards checked.
const verifyV1 = (proof) => Verify.verifyProof(proof, { allowUnsigned: true });

/** A proof in the proof route's format for a shoe of the spec's chain. */
async function makeProof({ secret = S1, number = 1, seed = CLIENT_SEED, rules = BID_SQUEEZE } = {}) {
  const shoe = await BaccPF.deriveShoe({
    server_seed: secret,
    shoe_number: number,
    client_seed: seed,
    rules,
  });
  return {
    spec: 'bacc-pf-v1',
    table_id: 'tbl_1',
    anchor: ANCHOR,
    shoe_number: number,
    client_seed: seed,
    client_hash: shoe.client_hash,
    rules,
    server_seed: secret,
    rounds: shoe.rounds.map((r) => ({
      round_number: r.round_number,
      start: r.start,
      player: r.player,
      banker: r.banker,
      player_total: r.player_total,
      banker_total: r.banker_total,
      result: r.result,
    })),
  };
}

let cached;
const specProof = async () => clone((cached = cached || (await makeProof())));

/** Another card code than `code` (rank K, or Q if it was a K; same suit). */
const otherCard = (code) => (code[0] === 'K' ? 'Q' : 'K') + code[1];

// ------------------------------------------------------------------------------------------------
// Roads

const R = (result, extra = {}) => ({ result, ...extra });
const seq = (s) => [...s].map((c) => R({ B: 'banker', P: 'player', T: 'tie' }[c]));
const places = (road) => road.cells.map((c) => [c.col, c.row]);

test('bead plate: 6 rows, filled column by column, ties included', () => {
  const plate = Roads.beadPlate(seq('BPTBBPPBT'));
  assert.equal(plate.rows, 6);
  assert.equal(plate.columns, 2);
  assert.deepEqual(places(plate), [
    [0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 0], [1, 1], [1, 2],
  ]);
  assert.deepEqual(plate.cells.map((c) => c.result).join(','),
    'banker,player,tie,banker,banker,player,player,banker,tie');
  assert.deepEqual(plate.cells.map((c) => c.round_number), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(Roads.beadPlate([]).columns, 0);
});

test('pairs: first two cards of the same rank, suit ignored', () => {
  assert.equal(Roads.isPair(['KS', 'KH', '3D']), true);
  assert.equal(Roads.isPair(['KS', 'QS']), false);
  assert.equal(Roads.isPair(['TS', 'TS']), true);
  assert.equal(Roads.isPair(['AS']), false);
  const [cell] = Roads.beadPlate([{ result: 'banker', player: ['4C', '4D'], banker: ['9S', '8S'] }]).cells;
  assert.equal(cell.player_pair, true);
  assert.equal(cell.banker_pair, false);
  const [obj] = Roads.beadPlate([{ result: 'tie', player: { cards: ['4C', '5D'] }, banker: { cards: ['JS', 'JD'] } }]).cells;
  assert.equal(obj.player_pair, false);
  assert.equal(obj.banker_pair, true);
});

test('big road: a streak runs down, a new side starts the next column', () => {
  const road = Roads.bigRoad(seq('BBBPPB'));
  assert.deepEqual(places(road), [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]]);
  assert.equal(road.columns, 3);
});

test('big road: a streak turns right at row 6 (dragon tail) and keeps going right', () => {
  const road = Roads.bigRoad(seq('BBBBBBBBP'));
  assert.deepEqual(places(road), [
    [0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 5], [2, 5], [1, 0],
  ]);
});

test('big road: a streak turns right when the cell below is taken', () => {
  // 8 Bankers: tail along row 5 to column 2. Then P, then 6 Bankers in column 2: the cell (2, 5)
  // is taken by the first tail, so the streak turns right at row 4.
  const road = Roads.bigRoad(seq('BBBBBBBBPBBBBBBB'));
  assert.deepEqual(places(road).slice(8), [
    [1, 0], // P
    [2, 0], [2, 1], [2, 2], [2, 3], [2, 4], [3, 4], [4, 4], // B streak, turned at row 4
  ]);
  // A later streak starting under a tail that reaches row 0's right neighbour keeps its column.
  const road2 = Roads.bigRoad(seq('BBBBBBBBPBBBBBBBP'));
  assert.deepEqual(places(road2).at(-1), [3, 0]);
});

test('big road: nested dragon tails, and a streak whose top cell is taken moves right', () => {
  // Each long streak is stopped one row higher by the tail below it: B×11 tails along row 5,
  // P×9 along row 4, B×7 along row 3, P×5 along row 2, B×4 along row 1, and P×3 starts at
  // (5, 0) with (5, 1) taken, so it runs right along row 0 to (7, 0). The next streak would start
  // in column 6, whose top is taken: it starts in the first free column, 8.
  const road = Roads.bigRoad(seq('B'.repeat(11) + 'P'.repeat(9) + 'B'.repeat(7) + 'P'.repeat(5) +
    'B'.repeat(4) + 'P'.repeat(3) + 'B'));
  const at = places(road);
  assert.deepEqual(at.slice(0, 11), [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5],
    [1, 5], [2, 5], [3, 5], [4, 5], [5, 5]]);
  assert.deepEqual(at.slice(11, 20), [[1, 0], [1, 1], [1, 2], [1, 3], [1, 4],
    [2, 4], [3, 4], [4, 4], [5, 4]]);
  assert.deepEqual(at.slice(20, 27), [[2, 0], [2, 1], [2, 2], [2, 3], [3, 3], [4, 3], [5, 3]]);
  assert.deepEqual(at.slice(27, 32), [[3, 0], [3, 1], [3, 2], [4, 2], [5, 2]]);
  assert.deepEqual(at.slice(32, 36), [[4, 0], [4, 1], [5, 1], [6, 1]]);
  assert.deepEqual(at.slice(36, 39), [[5, 0], [6, 0], [7, 0]]);
  assert.deepEqual(at.slice(39), [[8, 0]]);
  assert.equal(new Set(at.map(String)).size, road.cells.length);
});

test('big road: ties are counted on the last cell, leading ties on the first', () => {
  const road = Roads.bigRoad(seq('TTBTPTTTB'));
  assert.deepEqual(places(road), [[0, 0], [1, 0], [2, 0]]);
  assert.deepEqual(road.cells.map((c) => c.ties), [3, 3, 0]);
  assert.deepEqual(road.cells[0].tie_rounds, [1, 2, 4]);
  assert.deepEqual(road.cells[1].tie_rounds, [6, 7, 8]);
  const onlyTies = Roads.bigRoad(seq('TT'));
  assert.equal(onlyTies.cells.length, 1);
  assert.equal(onlyTies.cells[0].result, 'tie');
  assert.equal(onlyTies.cells[0].ties, 2);
  assert.equal(Roads.bigRoad([]).cells.length, 0);
});

test('big road: rounds with an unknown result are left out, never crash', () => {
  const road = Roads.bigRoad([R('banker'), R('BANKER'), R(undefined), {}, R('banker')]);
  assert.deepEqual(places(road), [[0, 0], [0, 1]]);
  const plate = Roads.beadPlate([R('nope')]);
  assert.equal(plate.cells[0].result, null);
});

test('roads of the spec shoe: every round on the bead plate, every non-tie on the big road', async () => {
  const { rounds } = await specProof();
  const plate = Roads.beadPlate(rounds);
  const road = Roads.bigRoad(rounds);
  const ties = rounds.filter((r) => r.result === 'tie').length;
  assert.equal(plate.cells.length, 78);
  assert.equal(plate.columns, 13);
  assert.equal(road.cells.length, 78 - ties);
  assert.equal(road.cells.reduce((s, c) => s + c.ties, 0), ties);
  assert.equal(new Set(places(road).map(String)).size, road.cells.length);
  assert.ok(road.cells.every((c) => c.row >= 0 && c.row < 6));
});

test('cell descriptions are plain words', () => {
  const [b] = Roads.beadPlate([{ round_number: 7, result: 'banker', banker_total: 7, player_total: 3, banker_pair: true, player_pair: false }]).cells;
  assert.equal(Roads.describeCell(b, 'bead'), 'Round 7: Banker wins 7–3, banker pair');
  const [t] = Roads.bigRoad(seq('PTT')).cells;
  assert.equal(Roads.describeCell(t, 'big'), 'Round 1: Player, 2 ties (rounds 2, 3)');
});

// ------------------------------------------------------------------------------------------------
// The verdict

test('an unsigned v1 proof is not verified unless unsigned proofs are allowed', async () => {
  const report = await Verify.verifyProof(await specProof());
  assert.equal(report.verified, false);
  assert.match(report.reason, /^unsigned proof: it carries no signature/);
  const allowed = await verifyV1(await specProof());
  assert.equal(allowed.verified, true, allowed.reason);
  assert.match(allowed.reason, /\(unsigned v1 proof: no signature to check\)$/);
});

test('the spec example shoe as a proof is verified', async () => {
  const report = await verifyV1(JSON.stringify(await specProof()));
  assert.equal(report.verified, true, report.reason);
  assert.equal(report.verdict, 'verified');
  assert.equal(report.mismatches.length, 0);
  assert.match(report.reason, /all 78 rounds re-derive exactly/);
  assert.deepEqual(report.checks.map((c) => [c.id, c.ok]), [
    ['signature', null], // (unsigned, as allowed)
    ['spec', true], ['chain', true], ['client', true], ['rules', true], ['rounds', true],
  ]);
  assert.equal(report.rounds.length, 78);
  assert.ok(report.rounds.every((r) => r.status === 'ok'));
});

test('a later shoe of the chain walks more steps (s_10 is shoe 10)', async () => {
  const proof = await makeProof({ secret: S10, number: 10, rules: STAR_CITY, seed: '' });
  const report = await verifyV1(proof);
  assert.equal(report.verified, true, report.reason);
  assert.match(report.checks.find((c) => c.id === 'chain').detail, /10 chain steps/);
});

test('one changed card is found and named: round, field, expected vs found', async () => {
  const proof = await specProof();
  const old = proof.rounds[4].banker[1];
  proof.rounds[4].banker[1] = otherCard(old);
  const report = await verifyV1(proof);
  assert.equal(report.verified, false);
  assert.equal(report.verdict, 'NOT verified');
  const expected = (await specProof()).rounds[4].banker;
  assert.equal(
    report.reason,
    `round 5, banker cards: expected ${expected.join(' ')}, found ${proof.rounds[4].banker.join(' ')}`,
  );
  assert.equal(report.rounds[4].status, 'mismatch');
  assert.ok(report.rounds.filter((_, i) => i !== 4).every((r) => r.status === 'ok'));
});

test('every round field is compared', async () => {
  const cases = [
    ['start', (r) => { r.start += 1; }, /^round 3, start: expected \d+, found \d+$/],
    ['player cards', (r) => { r.player.push('AS'); }, /^round 3, player cards:/],
    ['player total', (r) => { r.player_total = (r.player_total + 1) % 10; }, /^round 3, player total:/],
    ['banker total', (r) => { r.banker_total = (r.banker_total + 1) % 10; }, /^round 3, banker total:/],
    ['result', (r) => { r.result = r.result === 'banker' ? 'player' : 'banker'; }, /^round 3, result:/],
    ['round number', (r) => { r.round_number = 4; }, /^round 3, round number: expected 3, found 4$/],
    ['missing total', (r) => { delete r.banker_total; }, /^round 3, banker total: expected \d, found nothing$/],
  ];
  for (const [name, change, pattern] of cases) {
    const proof = await specProof();
    change(proof.rounds[2]);
    const report = await verifyV1(proof);
    assert.equal(report.verified, false, name);
    assert.match(report.reason, pattern, name);
  }
});

test('hands as {cards, total} objects are accepted and checked', async () => {
  const proof = await specProof();
  for (const r of proof.rounds) {
    r.player = { cards: r.player, total: r.player_total };
    r.banker = { cards: r.banker, total: r.banker_total };
    delete r.player_total;
    delete r.banker_total;
  }
  assert.equal((await verifyV1(proof)).verified, true);
  proof.rounds[9].banker.total = (proof.rounds[9].banker.total + 5) % 10;
  const report = await verifyV1(proof);
  assert.match(report.reason, /^round 10, banker total: expected \d, found \d$/);
  proof.rounds[9].banker.total = (proof.rounds[9].banker.total + 5) % 10;
  proof.rounds[0].player.cards[0] = otherCard(proof.rounds[0].player.cards[0]);
  assert.match((await verifyV1(proof)).reason, /^round 1, player cards:/);
});

test('outcome facts, when a proof carries them, must be right', async () => {
  const proof = await specProof();
  proof.rounds[0].natural = true; // round 1: Player 8 → natural
  proof.rounds[1].natural = false;
  proof.rounds[1].player_pair = false;
  assert.equal((await verifyV1(proof)).verified, true);
  proof.rounds[1].natural = true;
  assert.match((await verifyV1(proof)).reason, /^round 2, natural: expected false, found true$/);
});

test('the chain: a wrong anchor or shoe number fails', async () => {
  const proof = await specProof();
  proof.anchor = S1;
  let report = await verifyV1(proof);
  assert.equal(report.verified, false);
  assert.equal(
    report.reason,
    `chain: the server seed does not reach the anchor in 1 step: expected anchor ${ANCHOR}, found ${S1}`,
  );
  const other = await specProof();
  other.shoe_number = 2;
  report = await verifyV1(other);
  assert.match(report.reason, /^chain: the server seed does not reach the anchor in 2 steps/);
  const bad = await specProof();
  bad.server_seed = 'xyz';
  report = await verifyV1(bad);
  assert.match(report.reason, /^chain: server seed: not a hex string/);
  assert.ok(report.rounds.every((r) => r.status === 'unchecked'));
});

test('the client hash must match the client seed', async () => {
  const proof = await specProof();
  proof.client_seed = CLIENT_SEED + ' ';
  const report = await verifyV1(proof);
  assert.equal(report.verified, false);
  assert.match(report.reason, new RegExp(`^client hash: expected [0-9a-f]{64}, found ${CLIENT_HASH}$`));
});

test('rounds the shoe does not deal, or silently missing rounds, fail', async () => {
  const extra = await specProof();
  extra.rounds.push({ ...extra.rounds[77], round_number: 79 });
  assert.equal((await verifyV1(extra)).reason,
    'round 79 is in the proof, but the shoe ends after round 78');

  const short = await specProof();
  short.rounds = short.rounds.slice(0, 40);
  const report = await verifyV1(short);
  assert.equal(report.reason,
    'round 41 is missing: by its rules the shoe deals 78 rounds, the proof has 40 and does not ' +
      'say the shoe was closed early');
  assert.equal(report.mismatches.length, 1);
});

test('an early-closed shoe verifies with the rounds it dealt (even none)', async () => {
  for (const n of [40, 1, 0]) {
    const proof = await specProof();
    proof.rounds = proof.rounds.slice(0, n);
    proof.end_reason = 'closed';
    const report = await verifyV1(proof);
    assert.equal(report.verified, true, `${n}: ${report.reason}`);
    assert.match(report.reason, /closed early, of 78/);
    assert.equal(report.rounds.filter((r) => r.status === 'not dealt').length, 78 - n);
  }
  const proof = await specProof();
  proof.end_reason = 'closed'; // closed after the last round: still fine
  assert.equal((await verifyV1(proof)).verified, true);
});

test('settlements and voided rounds do not disturb the card checks', async () => {
  const proof = await specProof();
  proof.rounds[3].settlement = { lines: [], house_take: 0 };
  proof.rounds[77].voided = true;
  const report = await verifyV1(proof);
  assert.equal(report.verified, true, report.reason);
  const note = report.checks.find((c) => c.id === 'settlements');
  assert.equal(note.ok, null);
  // an old v1 proof without its table configuration: the money cannot be recomputed, and says so
  assert.match(note.detail, /^1 round carries a settlement; not recomputed: the proof names no table configuration$/);
});

test('shoe-level fields, when present, are checked too', async () => {
  const shoe = await BaccPF.deriveShoe({ server_seed: S1, shoe_number: 1, client_seed: CLIENT_SEED, rules: BID_SQUEEZE });
  const proof = await specProof();
  Object.assign(proof, { cut_index: 393, burn: 1, burn_exposed: 'AS', first_round_start: 2, cards: shoe.cards });
  assert.equal((await verifyV1(proof)).verified, true);
  proof.cut_index = 392;
  assert.equal((await verifyV1(proof)).reason, 'shoe, cut index: expected 393, found 392');
  proof.cut_index = 393;
  proof.cards = [...shoe.cards];
  proof.cards[200] = otherCard(proof.cards[200]);
  assert.match((await verifyV1(proof)).reason, /^shoe, card at position 200: expected/);
});

test('malformed proofs get a plain NOT verified, never an exception', async () => {
  const cases = [
    ['{not json', /^the proof is not valid JSON/],
    ['[1, 2]', /^the proof must be a JSON object \(item 1 of the list is not a proof page\)$/],
    ['null', /^the proof must be a JSON object \(a proof is a JSON object, a list of its pages/],
    [JSON.stringify({ spec: 'bacc-pf-v2' }), /^the proof is for spec bacc-pf-v2, this page verifies bacc-pf-v1 and bacc-pf-v1.1$/],
    [JSON.stringify({ spec: 'bacc-pf-v1' }), /^the proof has no anchor field$/],
  ];
  for (const [text, pattern] of cases) {
    const report = await verifyV1(text);
    assert.equal(report.verified, false);
    assert.equal(report.verdict, 'NOT verified');
    assert.match(report.reason, pattern);
  }
  const proof = await specProof();
  proof.rules = { ...BID_SQUEEZE, cut_min: 5 };
  assert.match((await verifyV1(proof)).reason, /^rules: cut_min: must be >= 11/);
  const p2 = await specProof();
  p2.rounds[5] = 'garbage';
  assert.equal((await verifyV1(p2)).reason, 'round 6 is not an object');
  const p3 = await specProof();
  p3.shoe_number = '1';
  assert.match((await verifyV1(p3)).reason, /^shoe_number must be an integer/);
});

// ------------------------------------------------------------------------------------------------
// The project's known-answer vectors (tests/vectors/shoes.json, made by the engine), as proofs

const VECTORS = path.join(__dirname, '..', '..', 'tests', 'vectors', 'shoes.json');

test('every known-answer shoe verifies as a proof, and one changed card is caught', {
  skip: fs.existsSync(VECTORS) ? false : 'tests/vectors/shoes.json not present',
}, async () => {
  const { shoes } = JSON.parse(fs.readFileSync(VECTORS, 'utf8'));
  let checked = 0;
  for (const v of shoes) {
    if (!v.anchor) continue; // a secret off any chain: nothing to anchor it
    const proof = {
      spec: 'bacc-pf-v1',
      anchor: v.anchor,
      shoe_number: v.shoe_number,
      client_seed: v.client_seed,
      client_hash: v.client_hash,
      rules: v.rules,
      server_seed: v.secret,
      cut_index: v.cut_index,
      burn_exposed: v.burn_exposed,
      cards: v.cards,
      rounds: v.rounds.map((r, i) => ({ round_number: i + 1, ...r })),
    };
    const report = await verifyV1(proof);
    assert.equal(report.verified, true, `${v.name}: ${report.reason}`);
    assert.equal(report.rounds.length, v.rounds.length);

    const k = Math.floor(v.rounds.length / 2);
    const bad = clone(proof);
    bad.rounds[k].player[1] = otherCard(bad.rounds[k].player[1]);
    const failed = await verifyV1(bad);
    assert.equal(failed.verified, false, v.name);
    assert.match(failed.reason, new RegExp(`^round ${k + 1}, player cards: `), v.name);
    checked++;
  }
  assert.ok(checked >= 3, `only ${checked} anchored vectors`);
});

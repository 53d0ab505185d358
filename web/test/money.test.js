// The browser's settlement engine (web/money.js) against the Python engine's vectors: the
// published pay tables (their SHA-256), every settlement and void of the signed sample proof,
// every slip and book of the v1.1 vectors, the worked examples of the seeds and api.md, and the
// page catching a payout changed by one minor unit. Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const M = require('../money.js');
const BaccPF = require('../bacc-pf-v1.js');
const V = require('../verify.js');
const R = require('../receipt.js');

const VEC = path.join(__dirname, '..', '..', 'tests', 'vectors');
const read = (name) => JSON.parse(fs.readFileSync(path.join(VEC, name), 'utf8'));
const PAY = read('pay_tables.json');
const SAMPLE = read('proof_v2_sample.json');
const BOOKS = read('receipts.json');
const clone = (v) => JSON.parse(JSON.stringify(v));
const rounds = (pages) => pages.flatMap((p) => p.rounds);

const STAR = { profile: 'star-city', pay_table: 'star-city@1', rounding: 'floor_house_favour' };
const BID = { profile: 'bid-squeeze', pay_table: 'bid-squeeze@1', banking: 'house', banker_pays: '0.95', dragon_table: 'seed', rounding: 'floor_house_favour' };
/** A case settled: config, hands, bets as [ref, type, amount]. */
const settle = (config, player, banker, bets, pb = null) => M.settle(config, M.roundFacts(player, banker),
  bets.map(([bettor_ref, type, amount]) => ({ bettor_ref, type, amount })), pb && { bettor_ref: pb });

test('every published pay table is the one whose SHA-256 the spec publishes', () => {
  assert.deepEqual(Object.keys(M.PAY_TABLES).sort(), Object.keys(PAY.versions).sort());
  for (const [version, { table, sha256 }] of Object.entries(PAY.versions)) {
    assert.deepEqual(M.PAY_TABLES[version], table, version);
    const digest = crypto.createHash('sha256').update(BaccPF.canonicalBytes(M.PAY_TABLES[version])).digest('hex');
    assert.equal(digest, sha256, version);
    assert.equal(V.PAY_TABLES[version], sha256, version);
  }
});

test('every settlement and void of the signed sample is recomputed exactly', () => {
  const config = SAMPLE.pages[0].table_config;
  let settled = 0;
  for (const r of rounds(SAMPLE.pages)) {
    const ours = M.settle(config, M.roundFacts(r.player, r.banker), r.bets, r.player_banker);
    if (r.settlement) {
      settled++;
      for (const k of ['result', 'lines', 'bettors', 'player_banker', 'house', 'nets']) {
        assert.deepEqual(ours[k], r.settlement[k], `round ${r.round_number} ${k}`);
      }
    } else {
      assert.deepEqual({ nets: ours.nets, house_take: ours.house.take }, r.void.replaced);
    }
  }
  assert.equal(settled, 5);
});

test('every slip of the v1.1 books is paid as the engine paid it, and the books sum to their totals', () => {
  const config = BOOKS.proof[0].table_config;
  const byNumber = new Map(rounds(BOOKS.proof).map((r) => [r.round_number, r]));
  for (const page of BOOKS.book_pages) {
    const r = byNumber.get(page.round_number);
    const facts = M.roundFacts(r.player, r.banker);
    const slips = page.entries.map((e) => M.slip(config, facts, e.leaf.lines));
    page.entries.forEach((e, i) => {
      if (!r.void) assert.deepEqual(slips[i], e.settlement);
    });
    assert.deepEqual(M.bookTotals(slips), r.book.totals, `round ${r.round_number}`);
  }
});

test("the seed's worked example: a player-banker, 1% of each positive result", () => {
  // A is the player-banker, B bets Banker 200, C Player 100, Player wins: A +99, B −200, C +99, house +2
  const s = settle({ ...STAR, banking: 'player_banker', banker_pays: '1' }, ['9C', 'KD'], ['2C', '3D'],
    [['B', 'banker', 200], ['C', 'player', 100]], 'A');
  assert.deepEqual(s.nets, { B: -200, C: 99, A: 99 });
  assert.deepEqual(s.house, { covered: 0, commission: 2, take: 2 });
});

test("api.md's example: Banker at 19/20, then 1% of alice's positive result, floored", () => {
  const s = settle({ ...STAR, banking: 'house', banker_pays: '0.95' }, ['2C', '4D'], ['4S', '3H'],
    [['alice', 'banker', 2000], ['alice', 'tie', 100], ['bob', 'player', 1000]]);
  assert.deepEqual(s.lines[0], { index: 0, bettor_ref: 'alice', type: 'banker', stake: 2000, grade: 'win', multiplier: '19/20',
    gross_win: 2000, commission: 100, net: 1900, covered_by: 'house' });
  assert.deepEqual(s.bettors[0], { bettor_ref: 'alice', role: 'bettor', stake: 2100, gross: 1800, commission: 18, net: 1782 });
  assert.deepEqual(s.house, { covered: -900, commission: 118, take: -782 });
});

test('the two roundings differ exactly on fractions: floor keeps them for the house, half-up rounds halves up', () => {
  const hands = [['2C', '3D', '4H'], ['KS', '5C', 'TS']]; // Player 9 over Banker 5, six cards: Big
  for (const [rounding, big] of [['floor_house_favour', 50], ['half_up', 51]]) {
    const s = settle({ ...BID, rounding }, ...hands, [['a', 'big', 101], ['b', 'player', 150]]);
    assert.equal(s.lines[0].net, big, rounding); // 101 × 1/2 = 50.5
    assert.equal(s.lines[1].net, 150);
    assert.equal(s.bettors[1].commission, 0); // bid-squeeze: no round commission
  }
  // star-city 1% of 150: 148.5 → 148 (floor) or 149 (half up)
  for (const [rounding, net] of [['floor_house_favour', 148], ['half_up', 149]]) {
    const s = settle({ ...STAR, banking: 'house', banker_pays: '0.95', rounding }, ...hands, [['b', 'player', 150]]);
    assert.equal(s.nets.b, net, rounding);
    assert.equal(s.nets.b + s.house.take, 0);
  }
  // Banker 19/20 of 110 = 104.5
  for (const [rounding, net] of [['floor_house_favour', 104], ['half_up', 105]]) {
    const s = settle({ ...BID, rounding }, ['2C', '4D'], ['4S', '3H'], [['a', 'banker', 110]]);
    assert.deepEqual([s.lines[0].gross_win, s.lines[0].commission, s.lines[0].net], [110, 110 - net, net], rounding);
  }
});

test('bid-squeeze bets: No-commission Banker on a six, Lucky 6, Small, pairs and both dragon tables', () => {
  // Banker 6 on a pair of threes over Player 5 on three cards (a pair of twos): five cards
  const s = settle(BID, ['2C', '2D', 'AH'], ['3S', '3H'], [
    ['a', 'banker_no_commission', 100], ['a', 'lucky6', 100], ['a', 'small', 100], ['a', 'banker_pair', 10],
    ['a', 'any_pair', 10], ['a', 'perfect_pair', 10], ['a', 'banker_dragon', 100], ['a', 'player_dragon', 100],
  ]);
  assert.deepEqual(s.lines.map((l) => [l.type, l.grade, l.multiplier, l.net]), [
    ['banker_no_commission', 'win', '1/2', 50], ['lucky6', 'win', '12', 1200], ['small', 'lose', '0', -100],
    ['banker_pair', 'win', '11', 110], ['any_pair', 'win', '5', 50], ['perfect_pair', 'lose', '0', -10],
    ['banker_dragon', 'lose', '0', -100], ['player_dragon', 'lose', '0', -100],
  ]);
  // Player 9 over Banker 3 on three cards each: a non-natural margin of 6 (seed 3, common 4)
  const hands = [['2C', '2D', '5H'], ['KS', 'KH', '3C']];
  assert.equal(settle(BID, ...hands, [['a', 'player_dragon', 100]]).nets.a, 300);
  assert.equal(settle({ ...BID, dragon_table: 'common' }, ...hands, [['a', 'player_dragon', 100]]).nets.a, 400);
  // a natural tie pushes the dragons, Banker and Player; a perfect pair is the same card twice
  const tie = settle(BID, ['4C', '4C'], ['8D', 'KH'], [['a', 'player_dragon', 100], ['a', 'banker', 100], ['a', 'perfect_pair', 10]]);
  assert.deepEqual(tie.lines.map((l) => l.grade), ['push', 'push', 'win']);
  assert.equal(tie.nets.a, 250);
});

test('a configuration the engine does not know is refused, never guessed', () => {
  const facts = M.roundFacts(['2C', '4D'], ['4S', '3H']);
  const bet = [{ bettor_ref: 'a', type: 'banker', amount: 100 }];
  for (const bad of [{ ...BID, pay_table: 'bid-squeeze@2' }, { ...BID, pay_table: 'star-city@1' }, { ...BID, rounding: 'up' },
    { ...BID, banker_pays: '0.9' }, { ...BID, dragon_table: 'x' }]) {
    assert.throws(() => M.settle(bad, facts, bet, null), M.MoneyError, JSON.stringify(bad));
  }
  assert.throws(() => M.settle(STAR, facts, [{ bettor_ref: 'a', type: 'lucky6', amount: 100 }], null), M.MoneyError);
  assert.throws(() => M.settle(BID, facts, [{ bettor_ref: 'a', type: 'banker', amount: 1.5 }], null), M.MoneyError);
});

test('the page catches a payout changed by one minor unit, even balanced (a re-signed one: tests/live/browser)', async () => {
  const pages = clone(SAMPLE.pages);
  // round 1: the Banker winner's round commission 11 → 10, and everything that follows from it,
  // so the settlement still balances (Σ nets + house take = 0)
  const s = pages[0].rounds[0].settlement;
  const ref = s.bettors[0].bettor_ref;
  s.bettors[0].commission -= 1;
  s.bettors[0].net += 1;
  s.nets[ref] += 1;
  s.house.commission -= 1;
  s.house.take -= 1;
  const report = await V.verifyProof(pages, { allowUnsigned: true });
  assert.equal(report.verified, false);
  const m = report.mismatches.find((x) => x.where === 'round 1');
  assert.equal(m.message, `round 1, settlement.bettors[0].commission (bettor ${ref}): expected 11, found 10`);
  assert.equal(report.checks.find((c) => c.id === 'settlements').ok, false);
  assert.equal(report.rounds[0].status, 'mismatch');
  // a void's replaced money too
  const voided = clone(SAMPLE.pages);
  const v = rounds(voided).find((r) => r.void);
  const who = Object.keys(v.void.replaced.nets)[0];
  v.void.replaced.nets[who] += 1;
  const again = await V.verifyProof(voided, { allowUnsigned: true });
  assert.ok(again.mismatches.some((x) => x.message.startsWith(`round ${v.round_number}, void replaced.nets.${who} (bettor ${who}): expected`)),
    JSON.stringify(again.mismatches));
});

test('a receipt paid one minor unit short is not paid exactly', async () => {
  const { proof } = await V.verifyProof(clone(BOOKS.proof), { allowUnsigned: true });
  const receipt = clone(BOOKS.receipts.find((r) => r.settlement.lines && r.settlement.net > 0));
  receipt.settlement.net -= 1;
  const v = await R.verifyReceipt(proof, receipt);
  assert.equal(v.ok, false);
  assert.equal(v.moneyChecked, false);
  assert.match(v.line, /^the slip was NOT paid exactly: settlement\.net: expected \d+, found \d+$/);
});

test('public book pages beside a v1.1 proof: every slip paid exactly, the books whole', async () => {
  const KEYS = { keys: [read('TEST-ONLY-proof-signing-key.json').public_jwk] };
  const ok = await V.verifyProof([...clone(BOOKS.proof), ...clone(BOOKS.book_pages)], { keys: KEYS });
  assert.equal(ok.verified, true, ok.reason);
  assert.equal(ok.checks.find((c) => c.id === 'book_pages').detail,
    '2 book pages: 9 slips of 2 rounds in their books (the leaves give each book.root), each paid exactly, summing to book.totals');
  const pages = clone(BOOKS.book_pages);
  const entry = pages[0].entries[1];
  entry.settlement.net += 1;
  const bad = await V.verifyProof({ pages: [...clone(BOOKS.proof), ...pages] }, { keys: KEYS });
  assert.equal(bad.verified, false);
  assert.equal(bad.reason, `round 1, book entry 1, settlement.net (bettor ${entry.leaf.bettor_ref}): expected ` +
    `${entry.settlement.net - 1}, found ${entry.settlement.net}`);
  assert.equal(bad.rounds[0].status, 'mismatch');
  // a page left out: the book is not whole
  const short = await V.verifyProof([...clone(BOOKS.proof), clone(BOOKS.book_pages[1])], { keys: KEYS });
  assert.equal(short.verified, true, short.reason); // round 2's book alone is whole: round 1 unchecked
  assert.match(short.checks.find((c) => c.id === 'book_pages').detail, /^1 book page: 2 slips of 1 round/);
});

// The browser verifier on bacc-pf-v2 proofs (web/verify.js → web/verify-v2.js, web/bacc-pf-v2.js,
// web/drand.js, web/money.js): the signed samples (tests/make_v2_proof_vectors.py) verify with
// their beacon named, and each tamper is caught with its own line. Tampered pages are given
// unsigned (allowUnsigned), so the page signature is not what catches them; the BLS check is
// remembered per beacon after the first full verification (~165 ms each in node).
// Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const Drand = require('../drand.js');
globalThis.BaccaratDrand = Drand;
const V = require('../verify.js');
const V2 = require('../verify-v2.js');

const VECTORS = path.join(__dirname, '..', '..', 'tests', 'vectors');
const load = (name) => JSON.parse(fs.readFileSync(path.join(VECTORS, name), 'utf8'));
const SAMPLE = load('pf2_sample_proof.json').pages;
const QUICKNET = load('pf2_quicknet_proof.json').pages;
const KEYS = { keys: [load('TEST-ONLY-proof-signing-key.json').public_jwk] };
const clone = (v) => JSON.parse(JSON.stringify(v));
const rounds = (pages) => pages.flatMap((p) => p.rounds);
const unsigned = (pages) => pages.map((p) => { const q = { ...p }; delete q.signature; return q; });

const seen = new Map();
const verifyBeacon = Drand.verifyBeacon;
function remembered() {
  globalThis.BaccaratDrand = {
    ...Drand,
    verifyBeacon(chain, b) {
      const k = `${chain.chain_hash}/${chain.public_key}/${b.round}/${b.signature}`;
      if (!seen.has(k)) seen.set(k, verifyBeacon(chain, b));
      return seen.get(k);
    },
  };
}

async function tampered(edit) {
  remembered();
  const pages = clone(SAMPLE);
  edit(rounds(pages), pages);
  const report = await V.verifyProof(unsigned(pages), { allowUnsigned: true });
  assert.equal(report.verified, false);
  return report.reason;
}

test('the whole test-beacon shoe verifies: cards, beacons, money, voids apart, "test beacon"', async () => {
  const report = await V.verifyProof(clone(SAMPLE), { keys: KEYS, keysSource: 'the test key' });
  assert.equal(report.verified, true, report.reason);
  assert.equal(report.beacon, 'test beacon');
  assert.match(report.reason, /^bacc-pf-v2 shoe 3: .*31 beacon rounds of a test beacon \(NOT drand: its own key\) BLS-verified/);
  assert.doesNotMatch(report.reason, /drand quicknet/);
  assert.equal(report.interventionsLine, '1 voided round, players would have netted +489; played to the end ' +
    '(30 of 30 rounds); 2 beacon_unavailable voids (no beacon in time), 1 priced: players would have netted +760');
  const money = report.checks.find((c) => c.id === 'settlements');
  assert.equal(money.ok, true);
  assert.match(money.detail, /^29 settlements .* and what 2 voids replaced recomputed/);
  for (const v of report.rounds.filter((r) => r.status === 'beacon void')) assert.equal(v.mismatches.length, 0);
});

test('the shoe keyed by real drand quicknet rounds verifies as "drand quicknet"', async () => {
  const report = await V.verifyProof(clone(QUICKNET), { keys: KEYS, keysSource: 'the test key' });
  assert.equal(report.verified, true, report.reason);
  assert.equal(report.beacon, 'drand quicknet');
  assert.match(report.reason, /5 beacon rounds of drand quicknet BLS-verified/);
  assert.equal(report.interventionsLine, 'no voids; closed early after round 5 of 30');
});

const dealt = (rs, k) => rs.filter((r) => r.settlement)[k];

test('a changed beacon signature is caught', async () => {
  const other = dealt(rounds(SAMPLE), 4).beacon.signature; // a valid signature of another round
  const reason = await tampered((rs) => { dealt(rs, 3).beacon.signature = other; });
  const r = dealt(rounds(SAMPLE), 3);
  assert.equal(reason, `round ${r.round_number}: beacon round ${r.beacon.round}'s signature does not verify under ` +
    "the test beacon's public key");
});

test('a changed beacon round (or a lock time moved) is caught as the lock before the beacon', async () => {
  const r = dealt(rounds(SAMPLE), 5);
  let reason = await tampered((rs) => {
    dealt(rs, 5).lock.beacon_round += 1;
    dealt(rs, 5).beacon.round += 1;
  });
  assert.match(reason, new RegExp(`^round ${r.round_number}: lock before beacon: locked at ${r.lock.locked_at}, its ` +
    `beacon round is ${r.lock.beacon_round} \\(the first due 3000 ms or more after the lock\\), found ${r.lock.beacon_round + 1}$`));
  const later = new Date(Date.parse(r.lock.locked_at) + 6000).toISOString();
  reason = await tampered((rs) => { Object.assign(dealt(rs, 5), { bets_locked_at: later }); dealt(rs, 5).lock.locked_at = later; });
  assert.match(reason, /lock before beacon/);
});

test('a changed book root, or a locked bet changed after the lock, is caught', async () => {
  const r = rounds(SAMPLE).find((x) => x.settlement && x.bets.length);
  let reason = await tampered((rs) => { rs[r.round_number - 1].lock.book_root = '00'.repeat(32); });
  assert.match(reason, new RegExp(`^round ${r.round_number}: book root 0{64} is not the root of its locked bets`));
  reason = await tampered((rs) => { rs[r.round_number - 1].bets[0].amount += 100; });
  assert.match(reason, new RegExp(`^round ${r.round_number}: book root [0-9a-f]{64} is not the root of its locked bets`));
});

test('a changed card is caught', async () => {
  const r = dealt(rounds(SAMPLE), 4);
  const reason = await tampered((rs) => {
    const x = dealt(rs, 4);
    x.player[0] = x.player[0] === 'KS' ? 'QS' : 'KS';
  });
  assert.match(reason, new RegExp(`^round ${r.round_number}, player cards: expected`));
});

test('a changed payout is caught by the money recomputed in JavaScript', async () => {
  const r = rounds(SAMPLE).find((x) => x.settlement && x.settlement.lines.length);
  const reason = await tampered((rs) => { rs[r.round_number - 1].settlement.lines[0].net += 1; });
  assert.match(reason, new RegExp(`^round ${r.round_number}, settlement.lines\\[0\\].net`));
});

test('a beacon void priced wrongly, priced without its beacon, or hidden from the interventions is caught', async () => {
  const priced = rounds(SAMPLE).find((x) => V2.isBeaconVoid(x) && x.beacon);
  let reason = await tampered((rs) => { rs[priced.round_number - 1].void.replaced.house_take += 1; });
  assert.match(reason, new RegExp(`^round ${priced.round_number}, void replaced`));
  reason = await tampered((rs) => { delete rs[priced.round_number - 1].beacon; });
  assert.match(reason, /without its beacon cannot be priced/);
  reason = await tampered((rs, pages) => pages.forEach((p) => { p.interventions.beacon_voids = 0; }));
  assert.equal(reason, 'shoe, interventions.beacon_voids: expected 2, found 0');
});

const iso = (ms) => new Date(ms).toISOString();
const msOf = (t) => Date.parse(t);
const voidAt = (r, ms) => { r.voided_at = iso(ms); r.void.voided_at = r.voided_at; };

test('a beacon void sooner than 30 s after its lock, or after the next round locked, is caught', async () => {
  const k = rounds(SAMPLE).findIndex((x) => V2.isBeaconVoid(x) && !x.beacon);
  let reason = await tampered((rs) => voidAt(rs[k], msOf(rs[k].lock.locked_at) + 30000 - 1));
  assert.match(reason, new RegExp(`^round ${k + 1}: a beacon_unavailable void is voided no sooner than 30 s`));
  reason = await tampered((rs) => voidAt(rs[k], msOf(rs[k + 1].lock.locked_at) + 1));
  assert.match(reason, new RegExp(`^round ${k + 2}, lock.locked_at: expected not before the previous deal`));
});

test('an unpriced beacon void on drand quicknet is caught (drand keeps every round)', async () => {
  remembered();
  const pages = clone(QUICKNET);
  const rs = rounds(pages);
  const last = rs[rs.length - 1];
  for (const key of ['beacon', 'settlement', 'start', 'player', 'banker', 'player_total', 'banker_total', 'result']) delete last[key];
  Object.assign(last, { dealt_at: null, voided: true });
  last.void = { reason: 'beacon_unavailable', note: null, voided_at: null, replaced: null };
  voidAt(last, msOf(last.lock.locked_at) + 30000);
  const report = await V.verifyProof(unsigned(pages), { allowUnsigned: true });
  assert.equal(report.verified, false);
  assert.match(report.reason, /without its beacon round \d+: drand keeps every round/);
});

test('a test beacon cannot pass for drand', async () => {
  let reason = await tampered((rs, pages) => pages.forEach((p) => { p.beacon.test = false; }));
  assert.match(reason, /must be drand quicknet, field for field/);
  reason = await tampered((rs, pages) => pages.forEach((p) => { p.beacon.chain_hash = Drand.QUICKNET.chain_hash; }));
  assert.match(reason, /a test beacon's chain_hash is not its own/);
});

test('the test beacon chain hash and the lock round agree with the Python definitions', async () => {
  const info = load('test_beacon.json').info;
  assert.equal(await V2.testChainHash(info.public_key, info.genesis_ms, info.period_ms), info.hash);
  const chain = { genesis_ms: 1000, period_ms: 3000 };
  assert.deepEqual([0, 1, 999, 1000, 1001, 3000].map((t) => V2.lockRound(chain, t - 3000)), [1, 1, 1, 1, 2, 2]);
});

test("a spectator's receipt: in the book locked before the beacon round, paid exactly (or not)", async () => {
  remembered();
  const receipt = load('pf2_sample_receipt.json');
  const { proof } = await V.verifyProof(clone(SAMPLE), { keys: KEYS, keysSource: 'the test key' });
  const lock = proof.rounds[receipt.round_number - 1].lock;
  const R = require('../receipt.js');
  const ok = await R.verifyReceipt(proof, receipt);
  assert.equal(ok.ok, true, ok.line);
  assert.match(ok.line, new RegExp(`^slip in the book locked before beacon round ${lock.beacon_round} ` +
    `\\(round ${receipt.round_number}\\) \\(leaf 1 of 3\\) and paid exactly: net ${receipt.settlement.net}$`));
  const short = clone(receipt);
  short.settlement.net -= 1;
  const unpaid = await R.verifyReceipt(proof, short);
  assert.equal(unpaid.ok, false);
  assert.match(unpaid.line, /^the slip was NOT paid exactly: settlement\.net: expected -?\d+, found -?\d+$/);
  // a changed amount is another leaf: not in the book, which a v2 round locked before its beacon
  // round (not at its deal, as v1.1 seals it)
  const more = clone(receipt);
  more.leaf.lines[0].amount += 100;
  const out = await R.verifyReceipt(proof, more);
  assert.equal(out.ok, false);
  assert.ok(out.line.startsWith(`the slip is NOT in the book locked before beacon round ${lock.beacon_round} ` +
    `(round ${receipt.round_number}): its leaf, at index 0 of a tree of 3, does not reach the root `), out.line);
});

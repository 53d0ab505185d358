// The browser verifier's beacon check (web/drand.js, built from web/drand/src/drand.js with
// @noble/curves): the real drand quicknet rounds of tests/vectors/quicknet.json (where each came
// from is written there) verify under quicknet's published key; every tamper the Python twin
// refuses (tests/unit/test_beacon_bls.py: a flipped bit, another round, the malformed encodings,
// another key) is refused here; the test beacon's rounds (tests/vectors/test_beacon.json, made by
// the Python local beacon) verify under their own chain only, which is named "test beacon".
// Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const D = require('../drand.js');

const ROOT = path.join(__dirname, '..', '..');
const read = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'vectors', name), 'utf8'));
const Q = read('quicknet.json');
const T = read('test_beacon.json');
const R1000 = Q.rounds.find((v) => v.round === 1000);

const quick = (v, extra = {}) => ({
  chain_hash: Q.chain_hash, round: v.round, signature: v.signature, is_test: false, ...extra,
});
const flip = (hex, index) => {
  const bytes = hex.match(/../g);
  bytes[index] = (parseInt(bytes[index], 16) ^ 1).toString(16).padStart(2, '0');
  return bytes.join('');
};
const testChain = {
  chain_hash: T.info.hash, public_key: T.info.public_key, is_test: true,
  genesis_ms: T.info.genesis_ms, period_ms: T.info.period_ms, scheme: T.info.schemeID,
};

test('the pinned chain is quicknet as the vectors give it', () => {
  assert.equal(D.QUICKNET.chain_hash, Q.chain_hash);
  assert.equal(D.QUICKNET.public_key, Q.public_key);
  assert.ok(Q.rounds.length >= 3);
  assert.equal(D.describe(D.QUICKNET), 'drand quicknet');
});

for (const v of Q.rounds) {
  test(`real quicknet round ${v.round} verifies and its randomness is SHA-256 of it`, () => {
    assert.equal(D.verifyBeacon(D.QUICKNET, quick(v)), true);
    assert.equal(D.randomness(v.signature), v.randomness);
    for (const index of v === R1000 ? [0, 1, 24, 47] : [47]) {
      assert.equal(D.verifySignature(Q.public_key, v.round, flip(v.signature, index)), false);
    }
  });
}

test('a signature is for its round only', () => {
  for (const other of [0, 999, 1001, 2n ** 64n - 1n]) {
    assert.equal(D.verifyBeacon(D.QUICKNET, quick(R1000, { round: other })), false);
  }
  for (const v of Q.rounds.filter((x) => x !== R1000)) {
    assert.equal(D.verifySignature(Q.public_key, 1000, v.signature), false);
  }
  assert.equal(D.verifySignature(Q.public_key, '1000', R1000.signature), true);
  assert.equal(D.verifySignature(Q.public_key, 1000.5, R1000.signature), false);
  assert.equal(D.verifySignature(Q.public_key, 2n ** 64n, R1000.signature), false);
});

test('another chain, another flag or another key fails', () => {
  assert.equal(D.verifyBeacon(D.QUICKNET, quick(R1000, { is_test: true })), false);
  assert.equal(D.verifyBeacon(D.QUICKNET, quick(R1000, { chain_hash: T.info.hash })), false);
  assert.equal(D.verifyBeacon({ ...D.QUICKNET, scheme: 'pedersen-bls-chained' }, quick(R1000)), false);
  assert.equal(D.verifySignature(T.info.public_key, 1000, R1000.signature), false);
  assert.equal(D.verifySignature(Q.public_key.slice(0, 190) + '00', 1000, R1000.signature), false);
});

for (const [name, hex] of Object.entries(Q.malformed_signatures)) {
  if (name === 'about') continue;
  test(`a malformed signature (${name}) fails without throwing`, () => {
    assert.equal(D.verifySignature(Q.public_key, 1000, hex), false);
  });
}

test('signatures of the wrong length or not lower-case hex fail', () => {
  for (const hex of ['', 'b4', '00'.repeat(47), '00'.repeat(49), '00'.repeat(96),
    R1000.signature.toUpperCase(), null, 42]) {
    assert.equal(D.verifySignature(Q.public_key, 1000, hex), false);
  }
});

test("the test beacon's rounds verify under its own chain only, named test beacon", () => {
  assert.notEqual(T.info.hash, Q.chain_hash);
  assert.equal(D.describe(testChain), 'test beacon');
  assert.equal(D.describe({ ...testChain, chain_hash: Q.chain_hash }), 'test beacon');
  for (const b of T.rounds) {
    const beacon = { chain_hash: T.info.hash, round: b.round, signature: b.signature, is_test: true };
    assert.equal(D.verifyBeacon(testChain, beacon), true);
    assert.equal(D.randomness(b.signature), b.randomness);
    assert.equal(D.verifyBeacon(D.QUICKNET, { ...beacon, chain_hash: Q.chain_hash, is_test: false }), false);
    assert.equal(D.verifyBeacon(testChain, { ...beacon, signature: flip(b.signature, 5) }), false);
  }
});

test('round times as drand defines them', () => {
  assert.equal(D.roundTime(D.QUICKNET, 1), 1692803367000);
  assert.equal(D.roundTime(D.QUICKNET, 1000), (1692803367 + 999 * 3) * 1000);
  assert.throws(() => D.roundTime(D.QUICKNET, 0), RangeError);
  assert.equal(D.roundTime(testChain, 2), T.info.genesis_ms + T.info.period_ms);
});

test('web/drand.js is a classic script: a bare global context runs it, the page can inline it', () => {
  const vm = require('node:vm');
  const code = fs.readFileSync(path.join(__dirname, '..', 'drand.js'), 'utf8');
  assert.equal(/<\/script/i.test(code), false);
  const context = { TextEncoder, TextDecoder };
  vm.runInNewContext(code, context);
  const G = context.BaccaratDrand;
  assert.equal(typeof G.verifyBeacon, 'function');
  assert.equal(G.verifyBeacon(G.QUICKNET, quick(R1000)), true);
});

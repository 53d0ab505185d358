// bacc-pf-v1.1 books and bacc-receipt-v1 receipts (docs/bacc-pf-v1.md) in the independent
// JavaScript verifier: tests/vectors/receipts.json (made by the Python core) — the v1.1 proof
// verifies, every receipt's inclusion checks out and the three failing receipts fail. Run:
// node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const R = require('../receipt.js');
const V = require('../verify.js');

const ROOT = path.join(__dirname, '..', '..');
const VEC = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'vectors', 'receipts.json'), 'utf8'));
const clone = (v) => JSON.parse(JSON.stringify(v));

async function proof() {
  const report = await V.verifyProof(clone(VEC.proof), { allowUnsigned: true });
  return report;
}

test('the v1.1 proof verifies and shows each round\'s book', async () => {
  const report = await proof();
  assert.equal(report.proof.spec, 'bacc-pf-v1.1');
  const books = report.checks.find((c) => c.id === 'books');
  assert.ok(books && books.ok, JSON.stringify(books));
  assert.match(books.detail, /2 rounds with a book/);
  assert.deepEqual(report.rounds.filter((r) => r.proof).map((r) => r.proof.book.count), [7, 2]);
  assert.equal(report.interventions.voided_player_net,
    Object.values(report.proof.rounds[1].void.replaced.nets).reduce((a, b) => a + b, 0) +
      report.proof.rounds[1].book.totals.net);
});

test('a v1.1 book that does not balance fails', async () => {
  const pages = clone(VEC.proof);
  pages[0].rounds[0].book.totals.net += 1;
  const report = await V.verifyProof(pages, { allowUnsigned: true });
  assert.equal(report.verified, false);
  assert.ok(report.mismatches.some((m) => /do not balance/.test(m.message)));
});

test('every receipt of the vectors is in its book', async () => {
  const { proof: p } = await proof();
  for (const receipt of VEC.receipts) {
    const v = await R.verifyReceipt(p, receipt);
    assert.ok(v.ok, v.line);
    assert.match(v.line, new RegExp(`round ${receipt.round_number} \\(leaf ${receipt.leaf_index + 1} of ${receipt.tree_size}\\) and paid exactly: net ${receipt.settlement.net}$`));
    assert.equal(v.moneyChecked, true);
  }
});

test('the failing receipts fail', async () => {
  const { proof: p } = await proof();
  for (const bad of VEC.failing) {
    const v = await R.verifyReceipt(p, bad.receipt);
    assert.equal(v.ok, false, bad.why);
  }
});

test('tampered receipts fail', async () => {
  const { proof: p } = await proof();
  const changes = [
    (r) => { r.round_number = 2; },
    (r) => { r.leaf.round_id = 'tbl_book_s3_r2'; },
    (r) => { r.path.reverse(); },
    (r) => { r.root = '00'.repeat(32); },
    (r) => { r.shoe_id = 'tbl_book_s2'; },
    (r) => { r.leaf.role = 'seated'; },
  ];
  for (const change of changes) {
    const r = clone(VEC.receipts[4]);
    change(r);
    assert.equal((await R.verifyReceipt(p, r)).ok, false, String(change));
  }
});

// The book tree (docs/bacc-pf-v1.md, "The book tree (`bacc-book-v1`)") in the independent
// JavaScript verifier: every vector of tests/vectors/book.json (made by the Python core) is
// recomputed by web/booktree.js — so the two implementations agree — and the tree's roots and
// paths are also checked against Certificate Transparency's published test data
// (https://github.com/transparency-dev/merkle, testonly/constants.go RootHashes and
// proof/verify_test.go inclusionProofs), written out here. Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const B = require('../bacc-pf-v1.js');
const Book = require('../booktree.js');

const ROOT = path.join(__dirname, '..', '..');
const V = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'vectors', 'book.json'), 'utf8'));
const hex = (bytes) => B.toHex(bytes);
const unhex = (h) => B.fromHex(h);
const hexes = (list) => list.map(hex);
const leavesOf = (n) => V.tree.leaves.slice(0, n).map(unhex);

// Certificate Transparency's published answers (not read from book.json)
const CT_ROOTS = {
  0: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  3: 'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  7: 'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  8: '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
};
const CT_PATH_6_OF_8 = [ // leaf 6 of 8, 1-based there: index 5
  'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
  'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
];

test('roots of 0…8 leaves: the vectors, and Certificate Transparency\'s', async () => {
  for (const [n, expected] of Object.entries(V.tree.roots)) {
    assert.equal(hex(await Book.root(leavesOf(Number(n)))), expected, `root of ${n}`);
  }
  for (const [n, expected] of Object.entries(CT_ROOTS)) {
    assert.equal(hex(await Book.root(leavesOf(Number(n)))), expected, `CT root of ${n}`);
  }
  assert.deepEqual(hexes(await Book.inclusionPath(leavesOf(8), 5)), CT_PATH_6_OF_8);
});

test('every path of the 7-leaf tree: computed and verified', async () => {
  const leaves = leavesOf(7);
  const root7 = unhex(V.tree.roots['7']);
  const all = await Book.inclusionPaths(leaves);
  for (const entry of V.tree.paths_of_7) {
    const leaf = await Book.leafHash(leaves[entry.index]);
    assert.equal(hex(leaf), entry.leaf_hash);
    assert.deepEqual(hexes(await Book.inclusionPath(leaves, entry.index)), entry.path);
    assert.deepEqual(hexes(all[entry.index]), entry.path);
    assert.ok(await Book.verifyInclusion(leaf, entry.index, 7, entry.path.map(unhex), root7));
  }
});

test('the proofs that must fail do', async () => {
  for (const v of V.must_fail) {
    const ok = await Book.verifyInclusion(unhex(v.leaf_hash), v.index, v.tree_size,
      v.path.map(unhex), unhex(v.root));
    assert.equal(ok, false, v.what);
  }
  const leaf = await Book.leafHash(new Uint8Array(0));
  for (const [index, size] of [[0, 0], [1, 0], [2, 1], [-1, 1], [0.5, 1]]) {
    assert.equal(await Book.verifyInclusion(leaf, index, size, [], leaf), false, `${index}/${size}`);
  }
  assert.equal(await Book.verifyInclusion(leaf, 0, 1, [], leaf), true);
});

test('leaves: the seated and the 13-line spectator bettors', async () => {
  for (const v of Object.values(V.leaves)) {
    const i = v.input;
    const bytes = Book.leafBytes(i.round_id, i.bettor_ref, i.role, i.lines, i.seat);
    assert.equal(new TextDecoder().decode(bytes), v.canonical);
    assert.equal(bytes.length, v.bytes);
    assert.equal(hex(await Book.leafHash(bytes)), v.leaf_hash);
  }
  const spectator = V.leaves.spectator_13_lines.input;
  assert.equal(spectator.lines.length, 13);
});

test('the small book: order, leaves, root and every path', async () => {
  const refs = V.book.refs;
  Book.checkOrder(refs);
  assert.deepEqual(V.book.inputs.map((i) => i.bettor_ref), refs);
  const leaves = V.book.inputs.map((i) => Book.leafBytes(i.round_id, i.bettor_ref, i.role, i.lines, i.seat));
  assert.deepEqual(leaves.map((l) => new TextDecoder().decode(l)), V.book.leaves);
  const top = await Book.root(leaves);
  assert.equal(hex(top), V.book.root);
  const paths = await Book.inclusionPaths(leaves);
  assert.deepEqual(paths.map(hexes), V.book.paths);
  for (let i = 0; i < leaves.length; i++) {
    assert.ok(await Book.verifyInclusion(await Book.leafHash(leaves[i]), i, leaves.length, paths[i], top));
  }
  assert.throws(() => Book.checkOrder([refs[1], refs[0]]), /out of order/);
  assert.throws(() => Book.checkOrder([refs[0], refs[0]]), /second leaf/);
  Book.checkOrder(['br_Z', 'br_a']); // byte order: upper case first
});

test('leaves the rules refuse', () => {
  const bad = [
    ['seated', [{ type: 'banker', amount: 1, order: 0 }], null],
    ['spectator', [{ type: 'banker', amount: 1 }], 3],
    ['spectator', [{ type: 'banker', amount: 1, order: 0 }], null],
    ['seated', [{ type: 'banker', amount: 1 }], 1],
    ['spectator', [], null],
    ['spectator', [{ type: 'banker', amount: 1 }, { type: 'banker', amount: 2 }], null],
    ['spectator', [{ type: 'banker', amount: 0 }], null],
    ['spectator', [{ type: 'banker', amount: 1.5 }], null],
    ['spectator', [{ type: 'banker', amount: 1, bettor_id: 'alice' }], null],
    ['seated', [{ type: 'banker', amount: 1, order: 0 }], 0],
    ['watcher', [{ type: 'banker', amount: 1 }], null],
  ];
  for (const [role, lines, seat] of bad) {
    assert.throws(() => Book.leafBytes('r', 'br_a', role, lines, seat), Error, JSON.stringify([role, lines, seat]));
  }
});

test('random books: every path verifies, a changed byte, index or size fails', async () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (const n of [1, 2, 3, 5, 6, 9, 16, 17, 31, 33, 100]) {
    const leaves = Array.from({ length: n }, (_, i) => B.canonicalBytes({ i, r: next() }));
    const top = await Book.root(leaves);
    const paths = await Book.inclusionPaths(leaves);
    for (let i = 0; i < n; i++) {
      const leaf = await Book.leafHash(leaves[i]);
      assert.ok(await Book.verifyInclusion(leaf, i, n, paths[i], top), `${i} of ${n}`);
      const changed = Uint8Array.from(leaves[i]);
      changed[next() % changed.length] ^= 1;
      assert.equal(await Book.verifyInclusion(await Book.leafHash(changed), i, n, paths[i], top), false);
      if (n > 1) assert.equal(await Book.verifyInclusion(leaf, (i + 1) % n, n, paths[i], top), false);
      assert.equal(await Book.verifyInclusion(leaf, i, 2 * n, paths[i], top), false);
    }
  }
});

test('10,000 leaves (time printed, not asserted)', async () => {
  const leaves = Array.from({ length: 10000 }, (_, i) => new TextEncoder().encode(`leaf ${String(i).padStart(5, '0')}`));
  const started = performance.now();
  const top = await Book.root(leaves);
  const ms = performance.now() - started;
  const paths = await Book.inclusionPaths(leaves);
  const leaf = await Book.leafHash(leaves[9999]);
  assert.ok(await Book.verifyInclusion(leaf, 9999, 10000, paths[9999], top));
  assert.equal(paths[0].length, 14);
  console.log(`book tree, 10,000 leaves: root ${ms.toFixed(1)} ms (root ${hex(top)})`);
});

test('the spec page shows the same roots, paths and leaf hashes', async () => {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'bacc-pf-v1.md'), 'utf8');
  const block = text.match(/<!-- vector: book-tree -->\n```text\n([\s\S]*?)\n```/)[1];
  const rows = Object.fromEntries(block.split('\n').map((l) => [l.slice(0, l.indexOf(' = ')).trim(), l.slice(l.indexOf(' = ') + 3)]));
  const leaves = leavesOf(8);
  for (let n = 0; n <= 8; n++) assert.equal(rows[`root of ${n}`], hex(await Book.root(leaves.slice(0, n))));
  const paths = await Book.inclusionPaths(leaves.slice(0, 7));
  paths.forEach((p, i) => assert.equal(rows[`path of ${i} in 7`], hexes(p).join(', ')));
  for (const [name, v] of Object.entries(V.leaves)) {
    const i = v.input;
    const bytes = Book.leafBytes(i.round_id, i.bettor_ref, i.role, i.lines, i.seat);
    assert.equal(rows[`${name} leaf`], new TextDecoder().decode(bytes));
    assert.equal(rows[`${name} leaf hash`], hex(await Book.leafHash(bytes)));
  }
  assert.equal(rows['book of 3, root'], V.book.root);
});

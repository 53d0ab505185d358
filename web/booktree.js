/*
 * bacc-book-v1 — the book tree in the browser verifier: a round's locked book of bets as an
 * RFC 6962 / RFC 9162 Merkle tree (docs/bacc-pf-v1.md, "The book tree (`bacc-book-v1`)").
 *
 * Written from the spec page, sharing no code with the service: a leaf is the canonical bytes
 * of a bettor's slip (canonicalBytes of web/bacc-pf-v1.js), leaves in the book's order
 * (bettor_ref strictly ascending by UTF-8 bytes), leaf hash SHA-256(0x00 ‖ leaf), node hash
 * SHA-256(0x01 ‖ left ‖ right), split at the largest power of two below n, the empty tree's
 * root SHA-256 of nothing; inclusion proofs verified by RFC 9162 §2.1.3.2.
 *
 * One file: in a page, a classic <script> after bacc-pf-v1.js (globalThis.BaccBook); under
 * Node, require('./booktree.js'). SHA-256 comes from WebCrypto, so every function that hashes is
 * async. Hashes are Uint8Arrays of 32 bytes.
 */
(function (root) {
  'use strict';

  const SPEC = 'bacc-book-v1';
  const SEATED = 'seated';
  const SPECTATOR = 'spectator';
  const HASH_BYTES = 32;
  const LEAF = Uint8Array.of(0x00);
  const NODE = Uint8Array.of(0x01);
  const encoder = new TextEncoder();

  function pf() {
    if (root.BaccPF) return root.BaccPF;
    if (typeof require === 'function') return require('./bacc-pf-v1.js'); // Node
    throw new Error('bacc-pf-v1.js is not loaded');
  }

  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const p of parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  }

  function compareBytes(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }

  const byUtf8 = (a, b) => compareBytes(encoder.encode(a), encoder.encode(b));

  function equalBytes(a, b) {
    return a.length === b.length && compareBytes(a, b) === 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Leaves

  function whole(value, what, minimum) {
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new Error(`${what} must be an integer >= ${minimum}, not ${value}`);
    }
    return value;
  }

  function line(l, seated) {
    if (typeof l.type !== 'string' || !l.type) throw new Error('a line needs a bet type');
    const extra = Object.keys(l).filter((k) => !['type', 'amount', 'order'].includes(k));
    if (extra.length) throw new Error(`a line holds only type, amount and order, not ${extra}`);
    const out = { type: l.type, amount: whole(l.amount, 'amount', 1) };
    if (seated) out.order = whole(l.order, "a seated bettor's line order", 0);
    else if (l.order !== undefined && l.order !== null) {
      throw new Error("only a seated bettor's lines carry an order");
    }
    return out;
  }

  /** The leaf as a JSON value: seat and line orders for a seated bettor only, lines by type. */
  function leafDoc(roundId, bettorRef, role, lines, seat = null) {
    if (role !== SEATED && role !== SPECTATOR) throw new Error(`role ${role} is not a book role`);
    if (!roundId || !bettorRef) throw new Error('a leaf needs a round_id and a bettor_ref');
    const seated = role === SEATED;
    if (seated !== (seat !== null && seat !== undefined)) {
      throw new Error('a seated bettor has a seat, a spectator has none');
    }
    const body = lines.map((l) => line(l, seated)).sort((a, b) => byUtf8(a.type, b.type));
    const types = new Set(body.map((l) => l.type));
    if (!body.length || types.size !== body.length) {
      throw new Error('a slip has one line per bet type, at least one');
    }
    const doc = { spec: SPEC, round_id: roundId, bettor_ref: bettorRef, role, lines: body };
    if (seated) doc.seat = whole(seat, 'seat', 1);
    return doc;
  }

  /** The leaf's canonical bytes (what the tree hashes). */
  function leafBytes(roundId, bettorRef, role, lines, seat = null) {
    return pf().canonicalBytes(leafDoc(roundId, bettorRef, role, lines, seat));
  }

  async function leafHash(bytes) {
    return pf().sha256(concat(LEAF, bytes));
  }

  async function nodeHash(left, right) {
    return pf().sha256(concat(NODE, left, right));
  }

  // ---------------------------------------------------------------------------------------------
  // The book's order

  /** Throws unless the refs are strictly ascending by UTF-8 bytes (one leaf per bettor). */
  function checkOrder(refs) {
    for (let i = 1; i < refs.length; i++) {
      const c = byUtf8(refs[i - 1], refs[i]);
      if (c >= 0) {
        throw new Error(`book order: ${c === 0 ? 'a second leaf for' : 'out of order:'} ${refs[i]} at index ${i}`);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The tree

  /** Level by level, leaf hashes first; an odd last node is carried up (RFC 6962's split). */
  async function levels(leaves) {
    let level = await Promise.all(leaves.map(leafHash));
    const out = [level];
    while (level.length > 1) {
      const pairs = [];
      for (let i = 0; i + 1 < level.length; i += 2) pairs.push(nodeHash(level[i], level[i + 1]));
      const next = await Promise.all(pairs);
      if (level.length % 2) next.push(level[level.length - 1]);
      level = next;
      out.push(level);
    }
    return out;
  }

  /** The Merkle Tree Hash of the leaves (their bytes, in book order). */
  async function treeRoot(leaves) {
    if (!leaves.length) return pf().sha256(new Uint8Array(0));
    const all = await levels(leaves);
    return all[all.length - 1][0];
  }

  function pathOf(all, index) {
    const path = [];
    for (const level of all.slice(0, -1)) {
      if ((index ^ 1) < level.length) path.push(level[index ^ 1]);
      index = Math.floor(index / 2);
    }
    return path;
  }

  /** The audit path of leaf `index`, nearest sibling first. */
  async function inclusionPath(leaves, index) {
    if (!Number.isSafeInteger(index) || index < 0 || index >= leaves.length) {
      throw new Error(`leaf index ${index} outside a book of ${leaves.length}`);
    }
    return pathOf(await levels(leaves), index);
  }

  /** Every leaf's audit path, from one tree. */
  async function inclusionPaths(leaves) {
    const all = await levels(leaves);
    return leaves.map((_, i) => pathOf(all, i));
  }

  /**
   * RFC 9162 §2.1.3.2: does `path` lead from the leaf hash at `index` of a tree of `treeSize`
   * leaves to `expectedRoot`? The caller also compares treeSize with the book's published count.
   * Uses numbers, not 32-bit operators, so sizes up to 2^53 - 1 work.
   */
  async function verifyInclusion(leaf, index, treeSize, path, expectedRoot) {
    if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize)) return false;
    if (index < 0 || index >= treeSize) return false;
    if ([leaf, ...path].some((h) => !(h instanceof Uint8Array) || h.length !== HASH_BYTES)) return false;
    let fn = index;
    let sn = treeSize - 1;
    let r = leaf;
    const odd = (v) => v % 2 === 1;
    const half = (v) => Math.floor(v / 2);
    for (const p of path) {
      if (sn === 0) return false;
      if (odd(fn) || fn === sn) {
        r = await nodeHash(p, r);
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      } else {
        r = await nodeHash(r, p);
      }
      fn = half(fn);
      sn = half(sn);
    }
    return sn === 0 && expectedRoot instanceof Uint8Array && equalBytes(r, expectedRoot);
  }

  const api = Object.freeze({
    SPEC,
    leafDoc,
    leafBytes,
    leafHash,
    nodeHash,
    checkOrder,
    root: treeRoot,
    inclusionPath,
    inclusionPaths,
    verifyInclusion,
  });

  root.BaccBook = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

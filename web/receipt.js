/*
 * bacc-pf-v1.1 books and bacc-receipt-v1 receipts in the browser verifier (docs/bacc-pf-v1.md,
 * "bacc-pf-v1.1: rounds with a book" and "Receipts").
 *
 * Written from the spec page, sharing no code with the service:
 *   - checkBook(where, book): a v1.1 round's book {root, count, pages, totals} alone — its
 *     fields, pages = ceil(count / 100), one slip per leaf, totals that balance
 *     (net + house.take = 0, take = covered + commission, the bet types' stakes add up);
 *   - verifyReceipt(proof, receipt): the receipt's round found by its number, its leaf a
 *     spectator's bacc-book-v1 leaf of that round, tree_size = the round's book.count, root =
 *     book.root, and the leaf hash reaching the root by its path (RFC 9162, web/booktree.js).
 *     Then the slip is paid exactly: its money recomputed by web/money.js from the leaf's lines,
 *     the round's cards and the pay table the proof's table_config names (a voided round: its
 *     stake back, net 0), and compared with the receipt's settlement;
 *   - checkBookPages(proof, pages): public book pages given beside the proof — each round's
 *     pages whole, their leaves giving book.root, every slip's money recomputed, the slips
 *     summing to book.totals.
 *
 * One file: in a page, a classic <script> after bacc-pf-v1.js, booktree.js and money.js
 * (globalThis.BaccReceipt); under Node, require('./receipt.js').
 */
(function (root) {
  'use strict';

  const SPEC_V11 = 'bacc-pf-v1.1';
  const RECEIPT_SPEC = 'bacc-receipt-v1';
  const PAGE_ENTRIES = 100;
  const BOOK_FIELDS = ['root', 'count', 'pages', 'totals'];
  const HOUSE_FIELDS = ['covered', 'commission', 'take'];
  const MONEY_NOTE = 'the slip\'s money is recomputed on this page from its lines, the round\'s ' +
    'cards and the table\'s pay table (web/money.js), independently of "baccarat verify --receipt"';

  function lib(name, file) {
    if (root[name]) return root[name];
    if (typeof require === 'function') return require(file); // Node
    throw new Error(`${file} is not loaded`);
  }
  const pf = () => lib('BaccPF', './bacc-pf-v1.js');
  const book = () => lib('BaccBook', './booktree.js');
  const money = () => lib('BaccMoney', './money.js');

  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isInt = (v) => Number.isSafeInteger(v);
  const show = (v) => (v === undefined ? 'nothing' : JSON.stringify(v));

  /** The number of public book pages of a book of `count` leaves. */
  function pageCount(count) {
    return Math.ceil(count / PAGE_ENTRIES);
  }

  /** A v1.1 round's book alone: a list of problems in words (empty: well formed). */
  function checkBook(where, b) {
    if (!isObject(b) || Object.keys(b).sort().join() !== [...BOOK_FIELDS].sort().join()) {
      return [`${where}: book must be an object of ${BOOK_FIELDS.join(', ')}, found ${show(b)}`];
    }
    const out = [];
    if (typeof b.root !== 'string' || !/^[0-9a-f]{64}$/.test(b.root)) {
      out.push(`${where}: book root must be 64 lower-case hex digits, found ${show(b.root)}`);
    }
    if (!isInt(b.count) || b.count < 0) {
      return [...out, `${where}: book count must be an integer ≥ 0, found ${show(b.count)}`];
    }
    if (b.pages !== pageCount(b.count)) {
      out.push(`${where}: book pages: expected ${pageCount(b.count)}, found ${show(b.pages)}`);
    }
    const t = b.totals;
    const house = isObject(t) && isObject(t.house) ? t.house : null;
    if (!house || !HOUSE_FIELDS.every((k) => isInt(house[k])) ||
        !['bettors', 'stake', 'net'].every((k) => isInt(t[k]))) {
      return [...out, `${where}: book totals must hold integers bettors, stake, net and house`];
    }
    if (t.net + house.take !== 0) {
      out.push(`${where}: the book's totals do not balance (net ${t.net} + house take ${house.take} ≠ 0)`);
    }
    if (house.take !== house.covered + house.commission) {
      out.push(`${where}: book totals house.take: expected ${house.covered + house.commission}, found ${house.take}`);
    }
    const stakes = isObject(t.by_type) ? Object.values(t.by_type).map((s) => (isObject(s) ? s.stake : null)) : null;
    if (!stakes || !stakes.every(isInt) || stakes.reduce((a, s) => a + s, 0) !== t.stake) {
      out.push(`${where}: book totals: the bet types' stakes do not add up to ${t.stake}`);
    }
    if (t.bettors !== b.count) {
      out.push(`${where}: book totals bettors: expected ${b.count} (one slip per leaf), found ${show(t.bettors)}`);
    }
    return out;
  }

  /** The round's id where the proof states it (a settled round's settlement). */
  function roundIdOf(round) {
    return isObject(round.settlement) ? round.settlement.round_id : undefined;
  }

  /** The leaf as bacc-book-v1 writes it, or a problem in words. */
  function leafProblem(leaf, roundId) {
    if (!isObject(leaf)) return `the receipt's leaf must be an object, found ${show(leaf)}`;
    if (leaf.role !== 'spectator') return `the leaf's role: expected "spectator", found ${show(leaf.role)}`;
    let again;
    try {
      again = book().leafDoc(leaf.round_id, leaf.bettor_ref, leaf.role, leaf.lines);
    } catch (e) {
      return `the leaf is not a bacc-book-v1 leaf: ${e.message}`;
    }
    const C = pf().canonicalJson;
    if (C(again) !== C(leaf)) return `the leaf is not in bacc-book-v1 form: expected ${C(again)}`;
    if (roundId !== undefined && leaf.round_id !== roundId) {
      return `the leaf's round_id: expected ${show(roundId)}, found ${show(leaf.round_id)}`;
    }
    return null;
  }

  /**
   * The slip's money as the receipt should state it: recomputed from its leaf's lines on the
   * round's cards under the proof's table_config (a voided round: {voided, stake, net: 0}).
   */
  function slipMoney(proof, round, leaf) {
    const M = money();
    if (round.settlement == null && isObject(round.void)) {
      const stake = leaf.lines.reduce((a, l) => a + l.amount, 0);
      return { voided: true, stake, net: 0 };
    }
    return M.slip(proof.table_config, M.roundFacts(round.player, round.banker), leaf.lines);
  }

  /** A problem in words when the receipt's settlement is not the slip's money, else null. */
  function moneyProblem(proof, round, receipt) {
    let expected;
    try {
      expected = slipMoney(proof, round, receipt.leaf);
    } catch (e) {
      return `the slip's money cannot be recomputed: ${e.message}`;
    }
    const hit = money().firstDifference('settlement', expected, receipt.settlement);
    if (!hit) return null;
    return `the slip was NOT paid exactly: ${hit.field}: expected ${show(hit.expected)}, found ${show(hit.found)}`;
  }

  /**
   * Is `receipt` a slip of the book locked at the deal of its round in `proof` (the assembled,
   * verified proof), and was it paid exactly? {ok, line, problems, moneyChecked, note}.
   */
  async function verifyReceipt(proof, receipt) {
    const problems = [];
    let moneyChecked = false;
    const result = (line) => ({ ok: problems.length === 0, line, problems, moneyChecked, note: MONEY_NOTE });
    if (!isObject(receipt)) return result((problems.push('a receipt is a JSON object'), problems[0]));
    if (receipt.spec !== RECEIPT_SPEC) {
      problems.push(`the receipt's spec: expected ${RECEIPT_SPEC}, found ${show(receipt.spec)}`);
      return result(problems[0]);
    }
    if (receipt.shoe_id !== proof.shoe_id) {
      problems.push(`the receipt is of shoe ${show(receipt.shoe_id)}, the proof of ${show(proof.shoe_id)}`);
      return result(problems[0]);
    }
    const n = receipt.round_number;
    const round = (Array.isArray(proof.rounds) ? proof.rounds : [])
      .find((r) => isObject(r) && r.round_number === n);
    if (!round || !isObject(round.book)) {
      problems.push(`round ${show(n)} is ${round ? 'a round without a book' : 'not in the proof'}: ` +
        'nothing to check the slip against');
      return result(problems[0]);
    }
    const b = round.book;
    const roundId = roundIdOf(round);
    if (roundId !== undefined && receipt.round_id !== roundId) {
      problems.push(`the receipt's round_id: expected ${show(roundId)}, found ${show(receipt.round_id)}`);
    }
    const leafBad = leafProblem(receipt.leaf, receipt.round_id);
    if (leafBad) {
      problems.push(leafBad);
      return result(problems[0]);
    }
    if (receipt.tree_size !== b.count) {
      problems.push(`the receipt's tree_size ${show(receipt.tree_size)} is not the number of slips ` +
        `in the round's book (${b.count})`);
    }
    if (receipt.root !== b.root) {
      problems.push(`the receipt's root: expected the round's book root ${b.root}, found ${show(receipt.root)}`);
    }
    // bacc-pf-v2: the book was locked with the round, before its beacon round existed
    const when = isObject(round.lock)
      ? `before beacon round ${round.lock.beacon_round} (round ${n})` : `at the deal of round ${n}`;
    const B = pf();
    let included = false;
    try {
      const leafHash = await book().leafHash(B.canonicalBytes(receipt.leaf));
      const path = (Array.isArray(receipt.path) ? receipt.path : [null]).map((h) => B.fromHex(h, 32, 'a path hash'));
      included = await book().verifyInclusion(leafHash, receipt.leaf_index, receipt.tree_size, path,
        B.fromHex(b.root, 32, 'root'));
    } catch (e) {
      included = false;
    }
    if (!included) {
      problems.push(`the slip is NOT in the book locked ${when}: its leaf, at ` +
        `index ${show(receipt.leaf_index)} of a tree of ${show(receipt.tree_size)}, does not ` +
        `reach the root ${b.root} by its path`);
    }
    if (problems.length) return result(problems[0]);
    const unpaid = moneyProblem(proof, round, receipt);
    if (unpaid) {
      problems.push(unpaid);
      return result(unpaid);
    }
    moneyChecked = true;
    return result(`slip in the book locked ${when} (leaf ` +
      `${receipt.leaf_index + 1} of ${receipt.tree_size}) and paid exactly: net ${receipt.settlement.net}`);
  }

  /** True for a public book page (bacc-book-v1: a round's slips with their money). */
  function isBookPage(doc) {
    return isObject(doc) && doc.spec === book().SPEC && Array.isArray(doc.entries);
  }

  /**
   * A round's public book pages against the proof (docs/bacc-pf-v1.md, "Public book pages"):
   * every page of the round, once; each naming the proof's shoe, the round, book.root, count and
   * pages; 100 entries a page but the last; every leaf a spectator's leaf of the round, refs
   * strictly ascending; the leaves' root = book.root; every slip's money recomputed; the slips'
   * money summed = book.totals. A list of problems in words (empty: all exact).
   */
  /** A slip's money when its stake is returned whole (a round voided before any card). */
  function refund(lines) {
    const zero = { gross_win: 0, commission: 0, net: 0 };
    return { lines: lines.map((l) => ({ type: l.type, stake: l.amount, ...zero })), commission: 0, net: 0 };
  }

  async function checkRoundBook(proof, round, pages) {
    const where = `round ${round.round_number}`;
    const b = round.book;
    const out = [];
    const byNumber = new Map();
    for (const p of pages) {
      const n = isObject(p.page) ? p.page.number : undefined;
      if (byNumber.has(n)) return [`${where}: book page ${show(n)} given twice`];
      byNumber.set(n, p);
      for (const [field, want] of [['shoe_id', proof.shoe_id], ['root', b.root], ['count', b.count]]) {
        if (p[field] !== want) out.push(`${where}: book page ${show(n)}'s ${field}: expected ${show(want)}, found ${show(p[field])}`);
      }
      if (!isObject(p.page) || p.page.count !== b.pages) {
        out.push(`${where}: book page ${show(n)}'s page count: expected ${b.pages}, found ${show(isObject(p.page) ? p.page.count : undefined)}`);
      }
    }
    if (out.length) return out;
    const missing = [];
    for (let k = 0; k < b.pages; k++) if (!byNumber.has(k)) missing.push(k);
    if (missing.length || byNumber.size !== b.pages) {
      return [`${where}: the book has ${b.pages} page(s) (0 … ${b.pages - 1}), given ${[...byNumber.keys()].map(show).join(', ')}`];
    }
    const entries = [];
    for (let k = 0; k < b.pages; k++) {
      const e = byNumber.get(k).entries;
      const want = k < b.pages - 1 ? PAGE_ENTRIES : b.count - PAGE_ENTRIES * (b.pages - 1);
      if (e.length !== want) out.push(`${where}: book page ${k} holds ${e.length} entries, expected ${want}`);
      entries.push(...e);
    }
    if (out.length) return out;
    const roundId = roundIdOf(round);
    const M = money();
    const voided = round.settlement == null && isObject(round.void);
    // a bacc-pf-v2 beacon_unavailable void (priced later or not) drew no card: stakes back
    const beaconVoid = voided && round.void.reason === 'beacon_unavailable';
    const facts = beaconVoid ? null : M.roundFacts(round.player, round.banker);
    const settled = [];
    let previous = null;
    for (const [i, e] of entries.entries()) {
      const leaf = isObject(e) ? e.leaf : undefined;
      const bad = leafProblem(leaf, roundId === undefined && isObject(leaf) ? leaf.round_id : roundId);
      if (bad) return [`${where}: book entry ${i}: ${bad}`];
      if (previous !== null && !(previous < leaf.bettor_ref)) {
        return [`${where}: book entry ${i}: refs must be strictly ascending (${leaf.bettor_ref} after ${previous})`];
      }
      previous = leaf.bettor_ref;
      let slipDoc;
      try {
        slipDoc = facts === null ? refund(leaf.lines) : M.slip(proof.table_config, facts, leaf.lines);
      } catch (err) {
        return [`${where}: book entry ${i}: the slip's money cannot be recomputed: ${err.message}`];
      }
      settled.push(slipDoc);
      const expected = voided ? { voided: true, stake: leaf.lines.reduce((a, l) => a + l.amount, 0), net: 0 } : slipDoc;
      const hit = M.firstDifference('settlement', expected, e.settlement);
      if (hit) {
        out.push(`${where}, book entry ${i}, ${hit.field} (bettor ${leaf.bettor_ref}): expected ${show(hit.expected)}, found ${show(hit.found)}`);
        return out;
      }
    }
    const B = pf();
    const root = B.toHex(await book().root(entries.map((e) => B.canonicalBytes(e.leaf))));
    if (root !== b.root) out.push(`${where}: the book pages' leaves give the root ${root}, the proof's book.root is ${b.root}`);
    const hit = M.firstDifference('book.totals', M.bookTotals(settled), b.totals);
    if (hit) out.push(`${where}, ${hit.field}: expected ${show(hit.expected)}, found ${show(hit.found)} (the slips' money summed)`);
    return out;
  }

  /**
   * The public book pages given beside a proof, per round: {checked: rounds fully checked,
   * slips, problems: [{round_number, message}]}. Rounds whose pages were not given are skipped.
   */
  async function checkBookPages(proof, pages) {
    const result = { checked: 0, slips: 0, problems: [] };
    const rounds = (Array.isArray(proof.rounds) ? proof.rounds : []).filter((r) => isObject(r) && isObject(r.book));
    for (const p of pages) {
      const r = rounds.find((x) => x.round_number === p.round_number);
      if (!r || p.shoe_id !== proof.shoe_id) {
        result.problems.push({ round_number: p.round_number, message: `a book page of shoe ${show(p.shoe_id)} round ` +
          `${show(p.round_number)}, which is not a round with a book of this proof` });
      }
    }
    for (const r of rounds) {
      const mine = pages.filter((p) => p.round_number === r.round_number && p.shoe_id === proof.shoe_id);
      if (!mine.length) continue;
      const bad = await checkRoundBook(proof, r, mine);
      for (const message of bad) result.problems.push({ round_number: r.round_number, message });
      if (!bad.length) {
        result.checked++;
        result.slips += r.book.count;
      }
    }
    return result;
  }

  const api = Object.freeze({
    SPEC_V11, RECEIPT_SPEC, PAGE_ENTRIES, MONEY_NOTE, pageCount, checkBook, verifyReceipt, isBookPage, checkBookPages,
  });
  root.BaccReceipt = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

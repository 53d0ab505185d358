/*
 * The browser verifier's logic and page controller (web/verify.html).
 *
 * It checks a bacc-pf-v1 shoe proof — the signed pages of a v2 proof (signature, cards,
 * lifecycle marks, interventions, bettor refs) or an old v1 proof — with web/bacc-pf-v1.js (an
 * independent implementation of docs/bacc-pf-v1.md; WebCrypto for SHA-256, HMAC and ES256) and
 * web/roads.js. It shares no code with the service. One file, no imports:
 *   - in the page, a classic <script> after bacc-pf-v1.js and roads.js: globalThis.BaccVerify;
 *   - under Node (tests): require('./verify.js') — the DOM part only runs when a document exists.
 *
 * Everything a proof contains is untrusted: it is only ever inserted with textContent or as SVG
 * attributes, never parsed as markup.
 */
(function (root) {
  'use strict';

  const SPEC = 'bacc-pf-v1';
  const REQUIRED = [
    'spec',
    'anchor',
    'shoe_number',
    'client_seed',
    'client_hash',
    'rules',
    'server_seed',
    'rounds',
  ];
  const EARLY_END = new Set(['closed', 'void', 'voided']);

  function lib(name, file) {
    if (root[name]) return root[name];
    if (typeof require === 'function') return require(file); // Node, not inlined pages
    throw new Error(`${file} is not loaded`);
  }
  const pf = () => lib('BaccPF', './bacc-pf-v1.js');
  const roads = () => lib('BaccRoads', './roads.js');
  const receipts = () => lib('BaccReceipt', './receipt.js');
  const money = () => lib('BaccMoney', './money.js');
  const pf2 = () => lib('BaccVerifyV2', './verify-v2.js');

  // ---------------------------------------------------------------------------------------------
  // Values in plain words

  function show(v) {
    if (v === undefined) return 'nothing';
    if (v === null) return 'null';
    if (Array.isArray(v)) return v.length ? v.map(show).join(' ') : '(no cards)';
    if (typeof v === 'string') return v === '' ? '""' : v;
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  }

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

  /** A hand of a proof round, either an array of codes or {cards, total}. */
  function proofHand(round, side) {
    const h = round[side];
    const totals = [];
    if (`${side}_total` in round) totals.push({ field: `${side} total`, value: round[`${side}_total`] });
    if (isObject(h)) {
      if ('total' in h) totals.push({ field: `${side} total`, value: h.total });
      return { cards: h.cards, totals };
    }
    return { cards: h, totals };
  }

  /** A proof round in the flat shape the page and the roads use. */
  function flatRound(round, index) {
    if (!isObject(round)) return { round_number: index + 1, result: null, player: [], banker: [] };
    const p = proofHand(round, 'player');
    const b = proofHand(round, 'banker');
    return {
      round_number: round.round_number,
      start: round.start,
      player: Array.isArray(p.cards) ? p.cards : [],
      banker: Array.isArray(b.cards) ? b.cards : [],
      player_total: p.totals.length ? p.totals[0].value : undefined,
      banker_total: b.totals.length ? b.totals[0].value : undefined,
      result: round.result,
      settlement: round.settlement,
      book: isObject(round.book) ? round.book : null,
      lock: isObject(round.lock) ? round.lock : null, // bacc-pf-v2: the book locked with it
      voided: round.voided === true || round.void === true || round.status === 'void',
      beacon_void: isObject(round.void) && round.void.reason === 'beacon_unavailable',
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Verification

  const UNSIGNED_MESSAGE =
    'unsigned proof: it carries no signature, so nothing shows who published it or that it is ' +
    'unchanged (an old v1 proof\'s cards can still be checked: allow unsigned proofs)';

  /**
   * The pages of a v2 proof given as one page, a list of pages or a bundle {"pages": [...]};
   * null for a v1 proof (one object without "page"). Throws on anything else.
   */
  function proofPages(doc) {
    if (isObject(doc) && Array.isArray(doc.pages) && !('page' in doc)) doc = doc.pages;
    if (isObject(doc)) return 'page' in doc ? [doc] : null;
    if (!Array.isArray(doc) || !doc.length) {
      throw new Error('a proof is a JSON object, a list of its pages or {"pages": [...]}');
    }
    doc.forEach((p, i) => {
      if (!isObject(p) || !('page' in p)) throw new Error(`item ${i + 1} of the list is not a proof page`);
    });
    return doc;
  }

  /** True when a parsed document is (or holds) a signed page. */
  function isSigned(doc) {
    try {
      const pages = proofPages(doc);
      return !!pages && pages.some((p) => p.signature !== undefined && p.signature !== null);
    } catch (_) {
      return false;
    }
  }

  const pageNumber = (p) => (isObject(p.page) ? p.page.number : undefined);
  const canonicalOrNull = (v) => {
    try {
      return pf().canonicalJson(v);
    } catch (_) {
      return null;
    }
  };

  /** Pages in order and the proof they make, or null (with the reason failed) when incomplete. */
  function assemblePages(given, fail, check) {
    for (const p of given) {
      const info = p.page;
      if (!isObject(info) || !Number.isInteger(info.number) || info.number < 1 ||
          !Number.isInteger(info.count) || info.count < 1) {
        fail({ where: 'proof', field: 'page', message: 'a page\'s "page" must be {number, count, …}' });
        check('pages', 'Pages', false, mismatchesText(fail));
        return null;
      }
    }
    const pages = [...given].sort((a, b) => pageNumber(a) - pageNumber(b));
    const count = pages[0].page.count;
    const numbers = pages.map(pageNumber);
    const complete = numbers.length === count && numbers.every((n, i) => n === i + 1) &&
      pages.every((p) => p.page.count === count);
    if (!complete) {
      const twice = numbers.find((n, i) => numbers.indexOf(n) !== i);
      const missing = [];
      for (let k = 1; k <= count; k++) if (!numbers.includes(k)) missing.push(k);
      const message = twice !== undefined
        ? `page ${twice} is given twice`
        : missing.length
          ? `page${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${count} ` +
            `${missing.length > 1 ? 'are' : 'is'} missing (give every page, a bundle or the proof's URL)`
          : 'its pages disagree on how many pages the proof has';
      fail({ where: 'proof', field: 'pages', message });
      check('pages', 'Pages', false, message);
      return null;
    }
    const B = pf();
    const header = B.headerOf(pages[0]);
    const headerText = canonicalOrNull(header);
    const sigText = canonicalOrNull(pages[0].signature ?? null);
    const rounds = [];
    const problems = [];
    const note = (m) => problems.push(m);
    pages.forEach((page, i) => {
      const k = i + 1;
      const where = `page ${k}`;
      const other = B.headerOf(page);
      if (canonicalOrNull(other) !== headerText) {
        const names = [...new Set([...Object.keys(header), ...Object.keys(other)])].sort();
        const name = names.find((n) => canonicalOrNull(header[n] ?? null) !== canonicalOrNull(other[n] ?? null));
        note({
          where, field: name, expected: header[name], found: other[name],
          message: `${where}'s ${name} differs from page 1's: ${show(other[name])} instead of ` +
            `${show(header[name])} (every page carries the same header)`,
        });
      }
      if (canonicalOrNull(page.signature ?? null) !== sigText) {
        note({ where, field: 'signature', message: `${where} carries another signature than page 1` });
      }
      const list = Array.isArray(page.rounds) ? page.rounds : [];
      if (!Array.isArray(page.rounds)) {
        note({ where, field: 'rounds', message: `${where}'s rounds must be a list` });
      }
      const first = list.length ? (isObject(list[0]) ? list[0].round_number : undefined) : null;
      const last = list.length ? (isObject(list[list.length - 1]) ? list[list.length - 1].round_number : undefined) : null;
      const want = {
        first_round: first,
        last_round: last,
        next: k < count ? `/v1/shoes/${header.shoe_id}/proof?page=${k + 1}` : null,
      };
      for (const [name, value] of Object.entries(want)) {
        if (page.page[name] !== value) {
          note({ where, field: `page.${name}`, expected: value, found: page.page[name] });
        }
      }
      rounds.push(...list);
    });
    return { pages, proof: { ...header, rounds }, problems, count };
  }

  // The last mismatch's words (for a check's detail).
  function mismatchesText(fail) {
    return fail.last ? fail.last.message : '';
  }

  /** The manifest against every page, then the ES256 signature over it. */
  async function checkSignature(pages, header, options, fail, check, report) {
    const B = pf();
    const sig = pages[0].signature;
    const label = 'Signature (ES256) over every page';
    if (sig === undefined || sig === null) {
      if (options.allowUnsigned) {
        check('signature', label, null, 'unsigned: accepted as asked, nothing shows who published it');
      } else {
        fail({ where: 'proof', field: 'signature', message: UNSIGNED_MESSAGE });
        check('signature', label, false, UNSIGNED_MESSAGE);
      }
      return;
    }
    const before = report.mismatches.length;
    const bad = (field, message, extra = {}) => fail({ where: 'signature', field, message, ...extra });
    if (!isObject(sig) || !isObject(sig.manifest)) {
      bad('signature', 'signature: it must be {alg, key_id, manifest, value}');
      check('signature', label, false, mismatchesText(fail));
      return;
    }
    const m = sig.manifest;
    const fields = [
      ['alg', 'ES256', sig.alg],
      ['manifest.spec', B.SIGNATURE_SPEC, m.spec],
      ['manifest.key_id', sig.key_id, m.key_id],
      ['manifest.shoe_id', header.shoe_id, m.shoe_id],
    ];
    for (const [field, expected, found] of fields) {
      if (expected !== found) {
        bad(field, `signature, ${field}: expected ${show(expected)}, found ${show(found)}`, { expected, found });
      }
    }
    if (!Array.isArray(m.pages) || m.pages.length !== pages.length) {
      bad('manifest.pages', `signature: the signed manifest does not list one hash per page (${plural(pages.length, 'page')})`);
      check('signature', label, false, mismatchesText(fail));
      return;
    }
    for (let k = 1; k <= pages.length; k++) {
      let got;
      try {
        got = await B.pageHash(pages[k - 1]);
      } catch (e) {
        bad('sha256', `page ${k} cannot be hashed: ${e.message}`);
        continue;
      }
      const want = m.pages[k - 1];
      if (got !== want) {
        fail({
          where: `page ${k}`, field: 'sha256', expected: want, found: got,
          message: `page ${k} was changed after it was signed: its SHA-256 is ${got}, the ` +
            `signed manifest lists ${want}`,
        });
      }
    }
    const keys = options.keys;
    const source = options.keysSource || 'the given key set';
    let verified = false;
    if (!keys) {
      bad('key', options.keysError ||
        'signature not checked: no signing keys (paste the JWK set GET /v1/signing-keys serves, ' +
        'or open this page from the API that published the proof)');
    } else if (!isObject(keys) || !Array.isArray(keys.keys)) {
      bad('keys', `signature: ${source} is not a JWK set ({"keys": [...]})`);
    } else {
      let jwk = null;
      for (const k of keys.keys) {
        try {
          if (isObject(k) && (await B.jwkThumbprint(k)) === sig.key_id) jwk = k;
        } catch (_) {
          /* not an EC key */
        }
      }
      let raw = null;
      try {
        raw = B.fromBase64url(sig.value);
      } catch (_) {
        raw = null;
      }
      const lo = jwk ? jwk.not_before ?? null : null;
      const hi = jwk ? jwk.not_after ?? null : null;
      const at = m.signed_at;
      if (!jwk) {
        bad('key_id', `signature: key ${show(sig.key_id)} is not among the signing keys of ${source}`);
      } else if ((lo !== null || hi !== null) && (!isTimestamp(at) ||
          (typeof lo === 'string' && at < lo) || (typeof hi === 'string' && at > hi))) {
        // the key a proof names was valid when it signed (GET /v1/signing-keys lists every key
        // that ever signed, each with not_before / not_after)
        bad('signed_at', `signature: signed at ${show(at)}, outside the validity of key ` +
          `${sig.key_id} in ${source} (from ${lo || 'its start'} to ${hi || 'now'})`);
      } else if (!raw || raw.length !== 64) {
        bad('value', 'signature: its value is not the base64url of 64 bytes (r ‖ s, ES256)');
      } else {
        let message = null;
        try {
          message = B.canonicalBytes(m);
        } catch (e) {
          bad('manifest', `signature: the manifest is not canonical JSON (${e.message})`);
        }
        if (message) {
          verified = await B.verifyEs256(jwk, message, raw);
          if (!verified) {
            bad('value', `signature: the ES256 signature does not verify over the manifest with ` +
              `key ${sig.key_id} (the manifest or the signature was changed)`);
          }
        }
      }
    }
    const ok = report.mismatches.length === before;
    if (ok && verified) {
      report.signature = { key_id: sig.key_id, source, signed_at: m.signed_at, pages: pages.length };
    }
    check('signature', label, ok,
      ok ? `signed by key ${sig.key_id} of ${source} at ${m.signed_at}, ${plural(pages.length, 'page')}`
        : report.mismatches[before].message);
  }

  /**
   * Is the proof the shoe asked for (options.shoeId: the id in the proof's URL, or the one the
   * person typed)? Its signed header names the table and the shoe (shoe_id = table_id_s{number}).
   */
  function checkSubject(header, asked, fail, check, report) {
    const table = header.table_id;
    const shoe = header.shoe_id;
    const label = 'The shoe asked for';
    const before = report.mismatches.length;
    if (asked && shoe !== asked) {
      fail({
        where: 'proof', field: 'shoe_id', expected: asked, found: shoe,
        message: `this is the proof of shoe ${show(shoe)} (table ${show(table)}), not of the shoe ` +
          `asked for, ${asked}: a proof verifies only the shoe it was signed for`,
      });
    }
    const own = `${table}_s${header.shoe_number}`;
    if (shoe !== own) {
      fail({
        where: 'proof', field: 'shoe_id', expected: own, found: shoe,
        message: `the proof's shoe_id ${show(shoe)} is not shoe ${show(header.shoe_number)} of its ` +
          `table ${show(table)} (${own})`,
      });
    }
    const ok = report.mismatches.length === before;
    const how = !asked ? 'no shoe was named to check it against'
      : ok ? 'the shoe asked for' : 'not the shoe asked for';
    report.subject = { table_id: table, shoe_id: shoe, asked: asked || null, matches: !!asked && ok,
      words: `table ${show(table)}, shoe ${show(shoe)} (${how})` };
    check('subject', label, asked ? ok : (ok ? null : false),
      ok ? report.subject.words : report.mismatches[before].message);
  }

  const isTimestamp = (v) => typeof v === 'string' && pf().TIMESTAMP.test(v);

  /** v2: when the round was dealt, its bets locked then, and resolved once after it. */
  function checkLifecycle(where, raw, previousDeal, endedAt, bad) {
    const dealt = raw.dealt_at;
    if (!isTimestamp(dealt)) {
      bad('dealt_at', 'a UTC timestamp', dealt, `${where}: dealt_at ${show(dealt)} is not a UTC timestamp`);
      return null;
    }
    if (raw.bets_locked_at !== dealt) {
      bad('bets_locked_at', dealt, raw.bets_locked_at,
        `${where}: bets_locked_at ${show(raw.bets_locked_at)} is not its dealt_at ${dealt} ` +
          '(bets are locked when the cards are dealt, never after)');
    }
    if (previousDeal && dealt < previousDeal) {
      bad('dealt_at', `not before ${previousDeal}`, dealt, `${where}: dealt at ${dealt}, before the previous round (${previousDeal})`);
    }
    if (isTimestamp(endedAt) && dealt > endedAt) {
      bad('dealt_at', `not after ${endedAt}`, dealt, `${where}: dealt at ${dealt}, after the shoe ended (${endedAt})`);
    }
    const s = raw.settlement;
    const v = raw.void;
    const settled = s !== null && s !== undefined;
    const voided = v !== null && v !== undefined;
    if (settled && voided) {
      bad('settlement', 'none (the round was voided)', 'a settlement', `${where} is both settled and voided`);
    } else if (!settled && !voided) {
      bad('settlement', 'a settlement or a void', null,
        `${where} is neither settled nor voided (a final proof resolves every round)`);
    }
    if (raw.voided !== voided) bad('voided', voided, raw.voided);
    for (const [name, doc, inner, word] of [
      ['settled_at', s, 'settled_at', 'settlement'],
      ['voided_at', v, 'voided_at', 'void'],
    ]) {
      const at = raw[name];
      if (doc === null || doc === undefined) {
        if (at !== null && at !== undefined) bad(name, null, at);
        continue;
      }
      if (!isTimestamp(at)) bad(name, 'a UTC timestamp', at);
      else if (at < dealt) bad(name, `not before ${dealt}`, at, `${where}: ${name} ${at} is before it was dealt (${dealt})`);
      if (isObject(doc) && inner in doc && doc[inner] !== at) bad(`${word} ${inner}`, at, doc[inner]);
    }
    if (voided) {
      if (!isObject(v)) {
        bad('void', '{reason, note, voided_at, replaced}', v);
      } else {
        if (!pf().VOID_REASONS.includes(v.reason)) {
          bad('void reason', `one of ${pf().VOID_REASONS.join(', ')}`, v.reason);
        }
        if (v.note !== null && v.note !== undefined && typeof v.note !== 'string') {
          bad('void note', 'a string or null', v.note);
        }
        const r = v.replaced;
        const nets = isObject(r) ? r.nets : undefined;
        if (!isObject(r) || !isObject(nets) || !Object.values(nets).every(Number.isSafeInteger) ||
            !Number.isSafeInteger(r.house_take)) {
          bad('void replaced', '{nets: {bettor_ref: integer}, house_take: integer}', r);
        }
      }
    }
    return dealt;
  }

  /** Each bettor ref of a v2 proof: rounds bet, total staked, settled net, what voids replaced. */
  function bettorSummary(rounds) {
    const by = new Map();
    const get = (ref) => {
      if (!by.has(ref)) by.set(ref, { bettor_ref: ref, rounds: [], staked: 0, net: 0, voided_net: 0, player_banker: false });
      return by.get(ref);
    };
    for (const r of rounds) {
      if (!isObject(r)) continue;
      for (const b of Array.isArray(r.bets) ? r.bets : []) {
        if (!isObject(b) || typeof b.bettor_ref !== 'string') continue;
        const e = get(b.bettor_ref);
        if (!e.rounds.includes(r.round_number)) e.rounds.push(r.round_number);
        if (Number.isSafeInteger(b.amount)) e.staked += b.amount;
      }
      if (isObject(r.player_banker) && typeof r.player_banker.bettor_ref === 'string') {
        get(r.player_banker.bettor_ref).player_banker = true;
      }
      const nets = isObject(r.settlement) && isObject(r.settlement.nets) ? r.settlement.nets : {};
      for (const [ref, n] of Object.entries(nets)) if (Number.isSafeInteger(n)) get(ref).net += n;
      const replaced = isObject(r.void) && isObject(r.void.replaced) && isObject(r.void.replaced.nets)
        ? r.void.replaced.nets : {};
      for (const [ref, n] of Object.entries(replaced)) if (Number.isSafeInteger(n)) get(ref).voided_net += n;
    }
    return [...by.values()];
  }

  /**
   * Verifies a proof: a v2 page, a list of pages or a bundle {"pages": [...]} (object or JSON
   * text), or an old v1 proof. `options`: {keys: a JWK set, keysSource: where it came from,
   * keysError: why there are none, allowUnsigned: accept a proof without a signature}. Never
   * throws for a bad proof: the answer is a report {verified, verdict, reason, mismatches, checks,
   * rounds, shoe, proof, info, pages, signature, interventions, interventionsLine, bettors}.
   * `mismatches` are in the order found: pages and signature, header (spec, fields, chain, client
   * hash, rules), then rounds in order, then shoe-level fields and interventions. `reason` words
   * the first one.
   */
  async function verifyProof(input, options = {}) {
    const mismatches = [];
    const checks = [];
    const report = {
      verified: false,
      verdict: 'NOT verified',
      reason: '',
      mismatches,
      checks,
      rounds: [],
      shoe: null,
      proof: null,
      info: {},
      pages: null,
      signature: null,
      interventions: null,
      interventionsLine: null,
      bettors: [],
      subject: null,
      beacon: null, // a bacc-pf-v2 proof's: 'drand quicknet' or 'test beacon'
    };
    const fail = (m) => {
      m.message = m.message || wordMismatch(m);
      mismatches.push(m);
      fail.last = m;
      return m;
    };
    const check = (id, label, ok, detail) => checks.push({ id, label, ok, detail });
    const finish = () => {
      report.verified = mismatches.length === 0;
      report.verdict = report.verified ? 'verified' : 'NOT verified';
      report.reason = report.verified
        ? summaryLine(report) + (report.subject ? `; ${report.subject.words}` : '')
        : mismatches[0].message;
      return report;
    };

    // Parse.
    let doc = input;
    if (typeof input === 'string') {
      try {
        doc = JSON.parse(input);
      } catch (e) {
        fail({ where: 'proof', field: 'JSON', message: `the proof is not valid JSON (${e.message})` });
        check('json', 'Proof is JSON', false, mismatches[0].message);
        return finish();
      }
    }
    // public book pages given beside the proof's (bacc-book-v1): checked against it below
    const bookPages = [...(options.bookPages || [])];
    if (isObject(doc) && Array.isArray(doc.pages) && !('page' in doc)) doc = doc.pages;
    if (Array.isArray(doc) && doc.some((d) => receipts().isBookPage(d))) {
      bookPages.push(...doc.filter((d) => receipts().isBookPage(d)));
      doc = doc.filter((d) => !receipts().isBookPage(d));
    }
    let pages;
    try {
      pages = proofPages(doc);
    } catch (e) {
      fail({ where: 'proof', field: 'JSON', message: `the proof must be a JSON object (${e.message})` });
      check('json', 'Proof is a JSON object', false, mismatches[0].message);
      return finish();
    }
    let proof = doc;
    const v2 = pages !== null;
    if (v2) {
      const assembled = assemblePages(pages, fail, check);
      if (!assembled) return finish();
      pages = assembled.pages;
      proof = assembled.proof;
      report.pages = pages.length;
      checkSubject(proof, options.shoeId, fail, check, report);
      // the signature first: a changed page is named by its hash before its header is compared
      await checkSignature(pages, proof, options, fail, check, report);
      assembled.problems.forEach(fail);
      check('pages', 'Pages', !assembled.problems.length, assembled.problems.length
        ? assembled.problems[0].message
        : `${plural(assembled.count, 'page')}, one header, linked in order`);
    } else if (!options.allowUnsigned) {
      fail({ where: 'proof', field: 'signature', message: UNSIGNED_MESSAGE });
      check('signature', 'Signature (ES256) over every page', false, UNSIGNED_MESSAGE);
    } else {
      check('signature', 'Signature (ES256) over every page', null,
        'an unsigned v1 proof, accepted as asked: nothing shows who published it');
    }
    report.proof = proof;
    const B = pf();

    // Spec and fields (a paged proof may be bacc-pf-v1.1: rounds with a book).
    const V11 = receipts().SPEC_V11;
    const isPf2 = v2 && proof.spec === pf2().SPEC; // bacc-pf-v2: cards keyed by a public beacon
    if (proof.spec !== SPEC && !(v2 && proof.spec === V11) && !isPf2) {
      fail({
        where: 'proof',
        field: 'spec',
        expected: SPEC,
        found: proof.spec,
        message: `the proof is for spec ${show(proof.spec)}, this page verifies ${SPEC}, ${V11} and ${pf2().SPEC}`,
      });
      check('spec', `Spec ${SPEC}`, false, mismatches[mismatches.length - 1].message);
    } else {
      check('spec', `Spec ${proof.spec}`, true, proof.spec);
    }
    const missing = REQUIRED.filter((f) => !(f in proof));
    for (const f of missing) {
      fail({ where: 'proof', field: f, message: `the proof has no ${f} field` });
    }
    if (missing.length) {
      check('fields', 'All fields present', false, `missing: ${missing.join(', ')}`);
    }

    const number = proof.shoe_number;
    const numberOk = Number.isInteger(number) && number >= 1 && number < 2 ** 32;
    if ('shoe_number' in proof && !numberOk) {
      fail({
        where: 'proof',
        field: 'shoe_number',
        message: `shoe_number must be an integer from 1 to 2^32 − 1, found ${show(number)}`,
      });
    }

    // 1. The chain: s_i walked i steps must give the anchor.
    if ('server_seed' in proof && 'anchor' in proof && numberOk) {
      try {
        B.fromHex(proof.anchor, 32, 'anchor');
        const reached = await B.chainWalk(proof.server_seed, number);
        report.info.reached = reached;
        if (reached === String(proof.anchor).toLowerCase()) {
          check('chain', 'Server seed reaches the anchor', true,
            `the server seed reaches the anchor in ${plural(number, 'chain step')}`);
        } else {
          const m = fail({
            where: 'chain',
            field: 'anchor',
            expected: reached,
            found: proof.anchor,
            message:
              `chain: the server seed does not reach the anchor in ${plural(number, 'step')}: ` +
              `expected anchor ${reached}, found ${show(proof.anchor)}`,
          });
          check('chain', 'Server seed reaches the anchor', false, m.message);
        }
      } catch (e) {
        const m = fail({ where: 'chain', field: 'server seed', message: `chain: ${e.message}` });
        check('chain', 'Server seed reaches the anchor', false, m.message);
      }
    } else {
      check('chain', 'Server seed reaches the anchor', false, 'not checked: fields missing');
    }

    // 2. The client hash.
    if ('client_seed' in proof && 'client_hash' in proof) {
      try {
        const expected = await B.clientHash(proof.client_seed);
        if (expected === String(proof.client_hash).toLowerCase()) {
          check('client', 'Client hash matches the client seed', true, expected);
        } else {
          const m = fail({
            where: 'client seed',
            field: 'client hash',
            expected,
            found: proof.client_hash,
            message: `client hash: expected ${expected}, found ${show(proof.client_hash)}`,
          });
          check('client', 'Client hash matches the client seed', false, m.message);
        }
      } catch (e) {
        const m = fail({ where: 'client seed', field: 'client seed', message: `client seed: ${e.message}` });
        check('client', 'Client hash matches the client seed', false, m.message);
      }
    }

    // 3. The rules.
    let rulesOk = false;
    if ('rules' in proof) {
      try {
        B.validateRules(proof.rules);
        rulesOk = true;
        const r = proof.rules;
        check('rules', 'Rules are a valid table configuration', true,
          `${r.decks} decks, burn ${r.burn ? 'on' : 'off'}, cut card ` +
            `${r.cut_max ? `${r.cut_min}–${r.cut_max} from the end` : 'none'}, round limit ` +
            `${r.round_limit || 'none'}`);
      } catch (e) {
        const m = fail({ where: 'rules', field: 'rules', message: `rules: ${e.message}` });
        check('rules', 'Rules are a valid table configuration', false, m.message);
      }
    }

    // 4. Re-derive the shoe.
    let shoe = null;
    let chain = null;
    const pf2Notes = []; // [round index, mismatch] of the lock and beacon checks
    if (isPf2 && rulesOk && numberOk && Array.isArray(proof.rounds)) {
      try {
        chain = await pf2().chainOf(proof.beacon);
        report.beacon = chain.label;
        check('beacon', 'Beacon chain', true, chain.is_test
          ? 'a test beacon (its own key, NOT drand): its rounds prove nothing about drand'
          : 'drand quicknet (the League of Entropy), its published key');
        shoe = await pf2().derive(proof, chain);
        // the spec's order: each round's lock and beacon before its cards
        const beacons = await pf2().checkRounds(proof, chain, (i, m) => {
          pf2Notes.push([i, fail({ where: `round ${i + 1}`, ...m })]);
        });
        Object.assign(report.info, { beacons_verified: beacons.verified, beacon_voids: beacons.beaconVoids });
        check('beacons', 'Each round locked before its beacon; every beacon BLS-verified', !pf2Notes.length,
          pf2Notes.length ? pf2Notes[0][1].message
            : `${plural(beacons.verified, 'beacon round')} of ${chain.is_test ? 'a test beacon (NOT drand)' : 'drand quicknet'} ` +
              `BLS-verified, each the first due 3 s or more after its round's lock; every book root ` +
              `recomputed from the locked bets${beacons.beaconVoids ? `; ${plural(beacons.beaconVoids, 'beacon_unavailable void')} without cards` : ''}`);
      } catch (e) {
        const m = fail({ where: 'shoe', field: 'beacon', message: `the shoe cannot be re-derived: ${e.message}` });
        check('beacon', 'Beacon chain', false, m.message);
      }
    } else if (rulesOk && numberOk && 'server_seed' in proof && 'client_seed' in proof) {
      try {
        shoe = await B.deriveShoe({
          server_seed: proof.server_seed,
          shoe_number: number,
          client_seed: proof.client_seed,
          rules: proof.rules,
        });
      } catch (e) {
        fail({ where: 'shoe', field: 'shoe', message: `the shoe cannot be re-derived: ${e.message}` });
      }
    }
    report.shoe = shoe;

    // 5. Every round.
    const proofRounds = Array.isArray(proof.rounds) ? proof.rounds : [];
    if ('rounds' in proof && !Array.isArray(proof.rounds)) {
      fail({ where: 'proof', field: 'rounds', message: 'rounds must be a list' });
    }
    const endReason = proof.end_reason;
    const closedEarly = v2 ? endReason === 'closed' : EARLY_END.has(endReason);
    if (v2 && endReason !== 'rules' && endReason !== 'closed') {
      fail({ where: 'shoe', field: 'end_reason', expected: 'rules or closed', found: endReason });
    }
    report.info.end_reason = endReason;
    report.info.closed_early = closedEarly;
    const derived = shoe ? shoe.rounds : [];
    const n = Math.max(proofRounds.length, shoe ? derived.length : 0);
    let roundsBad = 0;
    let missingNoted = false;
    for (let i = 0; i < n; i++) {
      const raw = proofRounds[i];
      const d = derived[i];
      const row = {
        index: i,
        round_number: i + 1,
        proof: raw === undefined ? null : flatRound(raw, i),
        derived: d || null,
        status: 'ok',
        mismatches: [],
      };
      report.rounds.push(row);
      const where = `round ${i + 1}`;
      const bad = (field, expected, found, message) => {
        const m = fail({ where, field, expected, found, message });
        row.mismatches.push(m);
        row.status = 'mismatch';
      };

      if (raw === undefined) {
        // The shoe deals more rounds than the proof shows.
        if (closedEarly) {
          row.status = 'not dealt';
        } else {
          row.status = 'missing';
          if (!missingNoted) {
            missingNoted = true;
            bad('round', 'present', 'missing',
              `${where} is missing: by its rules the shoe deals ${plural(derived.length, 'round')}, ` +
                `the proof has ${proofRounds.length} and does not say the shoe was closed early`);
          }
        }
        continue;
      }
      if (!shoe) {
        row.status = 'unchecked';
        continue;
      }
      if (!d) {
        bad('round', 'no round', 'a round',
          `${where} is in the proof, but the shoe ends after round ${derived.length}`);
        roundsBad++;
        continue;
      }
      if (!isObject(raw)) {
        bad('round', 'an object', raw, `${where} is not an object`);
        roundsBad++;
        continue;
      }
      if (raw.round_number !== d.round_number) {
        bad('round number', d.round_number, raw.round_number);
      }
      if (isPf2 && pf2().isBeaconVoid(raw)) {
        row.status = 'beacon void'; // no cards: its lock, beacon and price are checked below
        continue;
      }
      if (raw.start !== d.start) bad('start', d.start, raw.start);
      for (const side of ['player', 'banker']) {
        const h = proofHand(raw, side);
        if (!same(h.cards, d[side])) bad(`${side} cards`, d[side], h.cards);
      }
      for (const side of ['player', 'banker']) {
        const h = proofHand(raw, side);
        const expected = d[`${side}_total`];
        if (!h.totals.length) bad(`${side} total`, expected, undefined);
        for (const t of h.totals) if (t.value !== expected) bad(t.field, expected, t.value);
      }
      if (raw.result !== d.result) bad('result', d.result, raw.result);
      // Outcome facts some proofs carry: checked when present as booleans.
      const facts = outcomeFacts(d);
      for (const f of ['natural', 'player_pair', 'banker_pair']) {
        if (typeof raw[f] === 'boolean' && raw[f] !== facts[f]) {
          bad(f.replace('_', ' '), facts[f], raw[f]);
        }
      }
      if (row.status !== 'ok') roundsBad++;
    }
    for (const [i, m] of pf2Notes) {
      if (report.rounds[i]) {
        report.rounds[i].mismatches.push(m);
        report.rounds[i].status = 'mismatch';
      }
    }
    if (isPf2 && shoe && endReason === 'rules' && !shoe.ended_by_rules) {
      fail({ where: 'shoe', field: 'end_reason', expected: 'closed', found: endReason,
        message: `end_reason is rules, but by its rules the shoe had not ended after round ${proofRounds.length}` });
    }
    if (shoe) {
      const shown = Math.min(proofRounds.length, derived.length);
      const ok = roundsBad === 0 && (proofRounds.length === derived.length || closedEarly) &&
        proofRounds.length <= derived.length;
      let detail = `${shown - roundsBad} of ${plural(proofRounds.length, 'round')} re-derived and matching`;
      if (closedEarly && proofRounds.length < derived.length) {
        detail += `; the shoe was closed early (by its rules it would deal ${derived.length})`;
      }
      check('rounds', 'Every round re-derived and matching', ok, detail);
    } else {
      check('rounds', 'Every round re-derived and matching', false,
        'not checked: the shoe could not be re-derived');
    }

    // 6. Shoe-level fields some proofs carry: checked when present.
    if (shoe) {
      const extra = [
        ['cut_index', 'cut index', shoe.cut_index],
        ['burn_exposed', 'burn card', shoe.burn_exposed],
        ['burn', 'cards burned', shoe.burn],
        ['first_round_start', 'first round start',
          isPf2 ? shoe.first_start : derived.length ? derived[0].start : undefined],
        ['cards', 'cards', shoe.cards],
      ];
      for (const [key, field, expected] of extra) {
        if (!(key in proof)) continue;
        if (key === 'cards' && Array.isArray(proof.cards)) {
          const i = shoe.cards.findIndex((c, k) => proof.cards[k] !== c);
          if (i >= 0 || proof.cards.length !== shoe.cards.length) {
            const at = i >= 0 ? i : Math.min(proof.cards.length, shoe.cards.length);
            fail({
              where: 'shoe',
              field: 'cards',
              expected: shoe.cards[at],
              found: proof.cards[at],
              message: `shoe, card at position ${at}: expected ${show(shoe.cards[at])}, ` +
                `found ${show(proof.cards[at])}`,
            });
          }
        } else if (!same(proof[key], expected)) {
          fail({ where: 'shoe', field, expected, found: proof[key] });
        }
      }
    }

    // 7. v2: every round's lifecycle marks, then the interventions.
    if (v2) {
      let previousDeal = null;
      let lifecycleBad = 0;
      proofRounds.forEach((raw, i) => {
        if (!isObject(raw)) return;
        const where = `round ${i + 1}`;
        const bad = (field, expected, found, message) => {
          markRound(report, fail, i, { field, expected, found, message });
          lifecycleBad++;
        };
        if (isPf2 && pf2().isBeaconVoid(raw)) return; // no deal: checked with its lock
        const view = isPf2 ? { ...raw, bets_locked_at: raw.dealt_at } : raw; // v2 locks before the deal
        previousDeal = checkLifecycle(where, view, previousDeal, proof.ended_at, bad) || previousDeal;
      });
      check('lifecycle', 'Bets locked at every deal; every round settled or voided after it',
        lifecycleBad === 0,
        lifecycleBad ? mismatchesText(fail)
          : isPf2 ? `${plural(proofRounds.length, 'round')}: dealt after the lock, then settled or voided once`
            : `${plural(proofRounds.length, 'round')}: bets_locked_at = dealt_at, then settled or voided once`);
      checkBooks(proof, proofRounds, fail, check, report);
      report.bettors = bettorSummary(proofRounds);
      if (shoe) {
        const possible = !isPf2 ? derived.length
          : shoe.ended_by_rules ? shoe.dealt : proof.rules.cut_max > 0 ? null : proof.rules.round_limit;
        const recomputed = isPf2
          ? pf2().interventions(endReason, proofRounds, possible, B.interventionsOf)
          : B.interventionsOf(endReason, proofRounds, possible);
        const claimed = isObject(proof.interventions) ? proof.interventions : {};
        let ivBad = 0;
        for (const [k, expected] of Object.entries(isPf2 ? recomputed : B.asClaimed(recomputed, claimed))) {
          if (claimed[k] !== expected) {
            fail({ where: 'shoe', field: `interventions.${k}`, expected, found: claimed[k] });
            ivBad++;
          }
        }
        report.interventions = recomputed;
        report.interventionsLine = isPf2 ? pf2().interventionsText(recomputed, B.interventionsText)
          : B.interventionsText(recomputed);
        check('interventions', 'Interventions re-derived from the rounds and the seed', ivBad === 0,
          ivBad ? mismatchesText(fail) : report.interventionsLine);
      }
    }

    // 8. The money: every settlement (and what each void replaced) recomputed (web/money.js).
    checkMoney(proof, proofRounds, shoe ? (isPf2 ? shoe.money : derived) : null, v2, fail, check, report);
    if (bookPages.length) await checkBookPages(proof, bookPages, fail, check, report);

    checkPayTable(proof.table_config, fail, check, report);
    checkCommit(proof, proofRounds, fail, check, report);

    report.info.rounds_in_proof = proofRounds.length;
    report.info.rounds_by_rules = shoe ? derived.length : null;
    return finish();
  }


  /**
   * The public book pages given beside a v1.1 proof (web/receipt.js checkBookPages): each
   * round's pages whole, their leaves giving book.root, every slip's money recomputed and the
   * slips summing to book.totals.
   */
  async function checkBookPages(proof, pages, fail, check, report) {
    const label = "Public book pages: every slip in its book and paid exactly";
    let got;
    try {
      got = await receipts().checkBookPages(proof, pages);
    } catch (e) {
      got = { checked: 0, slips: 0, problems: [{ round_number: null, message: `the book pages cannot be checked: ${e.message}` }] };
    }
    for (const p of got.problems) {
      const i = (Array.isArray(proof.rounds) ? proof.rounds : []).findIndex((r) => isObject(r) && r.round_number === p.round_number);
      if (i >= 0) markRound(report, fail, i, { field: 'book pages', message: p.message });
      else fail({ where: 'book pages', field: 'book pages', message: p.message });
    }
    report.info.book_pages = pages.length;
    check('book_pages', label, got.problems.length === 0, got.problems.length ? mismatchesText(fail)
      : `${plural(pages.length, 'book page')}: ${plural(got.slips, 'slip')} of ${plural(got.checked, 'round')} ` +
        'in their books (the leaves give each book.root), each paid exactly, summing to book.totals');
  }

  /** A mismatch of round `i` (from 0): reported, and marked on the round's row. */
  function markRound(report, fail, i, m) {
    const made = fail({ where: `round ${i + 1}`, ...m });
    const row = report.rounds[i];
    if (row) {
      row.mismatches.push(made);
      row.status = 'mismatch';
    }
    return made;
  }

  /** A settlement's field in words, with the bettor it belongs to (lines[i], bettors[i], nets.<ref>). */
  function moneyField(path, doc) {
    const m = /^[\w ]+?\.(lines|bettors)\[(\d+)\]/.exec(path) || /\.nets\.(br_\w+|[^.]+)$/.exec(path);
    let who = null;
    if (m && m[2] !== undefined) {
      const item = isObject(doc) && Array.isArray(doc[m[1]]) ? doc[m[1]][Number(m[2])] : null;
      who = isObject(item) ? item.bettor_ref || item.bettor_id || item.id : null;
    } else if (m) {
      who = m[1];
    }
    return who ? `${path} (bettor ${who})` : path;
  }

  /**
   * Every settled round's settlement — each line, each bettor's and the player-banker's net, the
   * house's figures, the nets — and every v2 void's replaced settlement, recomputed from the
   * round's public bets, its re-derived cards and the pay table table_config names
   * (web/money.js). A v1.1 round's house figures include its book's totals. The first difference
   * of each round is reported (round, field, bettor, expected vs found).
   */
  function checkMoney(proof, rounds, derived, v2, fail, check, report) {
    const settled = rounds.filter((r) => isObject(r) && r.settlement != null).length;
    const replaced = v2 ? rounds.filter((r) => isObject(r) && isObject(r.void) && r.void.replaced !== null).length : 0;
    report.info.settlements = settled;
    if (!settled && !replaced) return;
    const M = money();
    const label = 'Settlements recomputed (money)';
    const config = proof.table_config;
    if (!isObject(config) || !derived) {
      check('settlements', label, null, `${plural(settled, 'round')} ${settled === 1 ? 'carries' : 'carry'} a ` +
        `settlement; not recomputed: ${derived ? 'the proof names no table configuration' : 'the shoe could not be re-derived'}`);
      return;
    }
    try {
      M.priced(config);
    } catch (e) {
      if (Object.prototype.hasOwnProperty.call(PAY_TABLES, payTableOf(config))) {
        fail({ where: 'shoe', field: 'table_config', message: `shoe, table_config: ${e.message}` });
      }
      check('settlements', label, false, `not recomputed: ${e.message}`);
      return;
    }
    const idField = v2 ? 'bettor_ref' : 'bettor_id';
    let bad = 0;
    let lines = 0;
    rounds.forEach((raw, i) => {
      const d = derived[i];
      const voidDoc = v2 && isObject(raw) && isObject(raw.void) ? raw.void : null;
      if (!isObject(raw) || !d || (raw.settlement == null && !voidDoc)) return;
      const where = `round ${i + 1}`;
      const note = (field, expected, found, message) => {
        markRound(report, fail, i, { field, expected, found, message });
        bad++;
      };
      let ours;
      try {
        ours = M.settle(config, M.roundFacts(d.player, d.banker), Array.isArray(raw.bets) ? raw.bets : raw.bets == null ? [] : raw.bets,
          raw.player_banker, idField);
      } catch (e) {
        note('settlement', 'bets that can be settled', raw.bets, `${where}, settlement: cannot be recomputed: ${e.message}`);
        return;
      }
      if (raw.settlement != null) lines += ours.lines.length;
      const bookHouse = isObject(raw.book) && isObject(raw.book.totals) && isObject(raw.book.totals.house) ? raw.book.totals.house : null;
      if (bookHouse) {
        for (const k of ['covered', 'commission', 'take']) {
          if (Number.isSafeInteger(bookHouse[k])) ours.house[k] += bookHouse[k];
        }
      }
      let hit;
      if (raw.settlement != null) {
        const tier = isObject(config.tier) ? config.tier.id : config.tier;
        const expected = { round_number: d.round_number, profile: config.profile, tier, banking: config.banking,
          rounding: M.priced(config).rounding, ...ours };
        hit = M.firstDifference('settlement', expected, raw.settlement);
        if (hit) hit.field = moneyField(hit.field, isObject(raw.settlement) ? raw.settlement : expected);
      } else {
        hit = M.firstDifference('void replaced', { nets: ours.nets, house_take: ours.house.take }, voidDoc.replaced);
        if (hit) hit.field = moneyField(hit.field, null);
      }
      if (hit) note(hit.field, hit.expected, hit.found);
    });
    check('settlements', label, bad === 0, bad ? mismatchesText(fail)
      : `${plural(settled, 'settlement')} (${plural(lines, 'bet line')}, every bettor's net, the house's take)` +
        `${replaced ? ` and what ${plural(replaced, 'void')} replaced` : ''} recomputed from the bets, the cards and ` +
        `${M.versionOf(config)}: all exact`);
  }

  /**
   * bacc-pf-v1.1: each round's book (web/receipt.js checkBook) — only in a v1.1 proof, where it
   * must be well formed. The root and the money need the public book pages: the page says so.
   */
  function checkBooks(proof, rounds, fail, check, report) {
    const withBook = rounds.filter((r) => isObject(r) && 'book' in r);
    const v11 = proof.spec === receipts().SPEC_V11 || proof.spec === pf2().SPEC; // v2: a book is the spectators' subtree
    if (!withBook.length && proof.spec !== receipts().SPEC_V11) return;
    let bad = 0;
    const note = (m) => {
      bad++;
      const row = report.rounds[m.index];
      const made = fail({ where: `round ${m.index + 1}`, field: 'book', message: m.message });
      if (row) {
        row.mismatches.push(made);
        row.status = 'mismatch';
      }
    };
    rounds.forEach((r, index) => {
      if (!isObject(r) || !('book' in r)) return;
      const where = `round ${index + 1}`;
      if (!v11) {
        note({ index, message: `${where} carries a book, which only a ${receipts().SPEC_V11} proof may` });
        return;
      }
      for (const message of receipts().checkBook(where, r.book)) note({ index, message });
    });
    const slips = withBook.reduce((a, r) => a + (isObject(r.book) && Number.isSafeInteger(r.book.count) ? r.book.count : 0), 0);
    check('books', "Each round's book of spectators' slips", bad === 0,
      bad ? mismatchesText(fail)
        : `${plural(withBook.length, 'round')} with a book (${plural(slips, 'slip')}): pages, one slip ` +
          'per leaf and totals that balance; the roots and every slip\'s money are checked from the ' +
          'public book pages (given beside the proof here, or by "baccarat verify --books")');
  }

  /**
   * Every published pay table (docs/bacc-pf-v1.md, "Pay tables"): version → SHA-256 of its
   * canonical description (tests/vectors/pay_tables.json). A published version never changes.
   */
  const PAY_TABLES = Object.freeze({
    'star-city@1': 'abeb8bafc18f1c62ed26dcc6a75dc7c65e4354b40eb014054c81c346a501eac3',
    'bid-squeeze@1': '9e92a639a1ceb1be884252bb829666f36b37402c8bdfdd6602fd51a03bde1a71',
  });

  /** The version a configuration names; one written before configurations named it: the profile's first. */
  function payTableOf(config) {
    return 'pay_table' in config ? config.pay_table : `${config.profile}@1`;
  }

  /** A proof's settlements were priced with a published version of its profile's pay table. */
  function checkPayTable(config, fail, check, report) {
    if (!isObject(config)) return;
    const version = payTableOf(config);
    const known = typeof version === 'string' && Object.prototype.hasOwnProperty.call(PAY_TABLES, version) &&
      version.startsWith(`${config.profile}@`);
    report.info.pay_table = version;
    if (!known) {
      fail({
        where: 'shoe', field: 'table_config.pay_table', expected: `a published pay table of ${show(config.profile)}`,
        found: version,
        message: `shoe, pay table: ${show(version)} is not a published pay table of ${show(config.profile)}`,
      });
    }
    check('pay_table', 'Pay table', known, known
      ? `${version}${'pay_table' in config ? '' : ' (named by no version: its profile\'s first)'}, published in bacc-pf-v1`
      : fail.last.message);
  }

  /** The header of a shoe the running table committed itself (absent from every other proof). */
  const COMMIT_FIELDS = ['committed_by', 'committed_at', 'client_seed_given_at'];

  /**
   * A shoe the running table committed itself (docs/bacc-pf-v1.md, "Shoe committed"): its client
   * seed was given before the commit, the commit came before the first deal and the end.
   */
  function checkCommit(proof, rounds, fail, check, report) {
    if (!COMMIT_FIELDS.some((k) => k in proof)) return;
    let bad = 0;
    const wrong = (field, expected, found, message) => {
      fail({ where: 'automatic commit', field, expected, found, message });
      bad++;
    };
    for (const k of COMMIT_FIELDS) if (!(k in proof)) wrong(k, 'present with the other commit fields', undefined);
    if (!bad) {
      if (proof.committed_by !== 'clock') wrong('committed_by', 'clock', proof.committed_by);
      for (const k of ['committed_at', 'client_seed_given_at']) {
        if (!isTimestamp(proof[k])) wrong(k, 'a UTC timestamp', proof[k]);
      }
    }
    if (!bad) {
      const given = proof.client_seed_given_at;
      const at = proof.committed_at;
      if (given > at) {
        wrong('client_seed_given_at', `not after committed_at (${at})`, given,
          `automatic commit: the client seed was given at ${given}, after the shoe was committed (${at})`);
      }
      const first = rounds.length && isObject(rounds[0]) ? rounds[0].dealt_at : null;
      if (isTimestamp(first) && at > first) wrong('committed_at', `not after round 1's dealt_at (${first})`, at);
      if (isTimestamp(proof.ended_at) && at > proof.ended_at) {
        wrong('committed_at', `not after ended_at (${proof.ended_at})`, at);
      }
      Object.assign(report.info, { committed_by: 'clock', committed_at: at, client_seed_given_at: given });
    }
    check('commit', 'Automatic commit with a client seed given in advance', bad === 0, bad ? fail.last.message
      : `committed by the table itself at ${proof.committed_at} with a client seed given in advance at ` +
        proof.client_seed_given_at);
  }

  function outcomeFacts(d) {
    const point = (code) => Math.max(0, '0A23456789'.indexOf(code[0])); // T, J, Q, K: 0
    const pts = (codes) => codes.slice(0, 2).reduce((s, c) => s + point(c), 0) % 10;
    return {
      natural: pts(d.player) >= 8 || pts(d.banker) >= 8,
      player_pair: roads().isPair(d.player),
      banker_pair: roads().isPair(d.banker),
    };
  }

  function wordMismatch(m) {
    const head = m.where === 'shoe' ? `shoe, ${m.field}` : `${m.where}, ${m.field}`;
    return `${head}: expected ${show(m.expected)}, found ${show(m.found)}`;
  }

  function summaryLine(report) {
    const p = report.proof;
    const n = report.info.rounds_in_proof;
    let s = `shoe ${p.shoe_number}: the server seed reaches the anchor, the client hash matches ` +
      `and all ${plural(n, 'round')} re-derive exactly`;
    if (report.info.closed_early && n < report.info.rounds_by_rules) {
      s += ` (closed early, of ${report.info.rounds_by_rules})`;
    }
    if (report.beacon) {
      const b = report.info;
      s = `${p.spec} ${s}; ${plural(b.beacons_verified, 'beacon round')} of ` +
        `${report.beacon === 'drand quicknet' ? 'drand quicknet' : 'a test beacon (NOT drand: its own key)'} ` +
        'BLS-verified, each round locked before its beacon round and its cards drawn from the remaining ones' +
        (b.beacon_voids ? `; ${plural(b.beacon_voids, 'beacon_unavailable void')} apart` : '');
    }
    if (report.pages) {
      if (!report.beacon) s += '; every round\'s bets locked at its deal';
      const sig = report.signature;
      s += sig
        ? `; signed by key ${sig.key_id} of ${sig.source} (ES256, ${plural(sig.pages, 'page')})`
        : '; unsigned';
    } else {
      s += ' (unsigned v1 proof: no signature to check)';
    }
    if (report.info.committed_by === 'clock') {
      s += `; committed by the table itself at ${report.info.committed_at} with a client seed ` +
        `given in advance at ${report.info.client_seed_given_at}`;
    }
    return s;
  }

  // ---------------------------------------------------------------------------------------------
  // Loading a proof

  /**
   * The proof route's 409 shoe_not_closed (a known shoe, still open) in words, with what is
   * known before its proof: table, rounds dealt, voids so far, when it closes at the latest.
   * null for any other error.
   */
  function openShoeText(error) {
    const d = error && error.details;
    if (!error || error.code !== 'shoe_not_closed' || !isObject(d)) return null;
    return `the shoe is still open (table ${d.table_id}, shoe ${d.shoe_number}): ` +
      `${d.rounds_dealt} rounds dealt, ${d.voided_rounds} voided so far; no proof until it ends — ` +
      `the service closes it by ${d.close_by} at the latest if nothing more is dealt`;
  }

  /** Reads a proof from a URL: fetch(), or XHR for file: URLs (fetch does not read files). */
  function loadUrl(url, base) {
    const target = new URL(url, base);
    if (target.protocol === 'file:') {
      return new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        xhr.open('GET', target.href);
        xhr.onload = () => {
          if (xhr.status === 0 || xhr.status === 200) resolve(xhr.responseText);
          else reject(new Error(`HTTP ${xhr.status}`));
        };
        xhr.onerror = () =>
          reject(new Error('the browser does not let a file:// page read other files by URL; ' +
            'choose the file or paste the proof instead'));
        xhr.send();
      });
    }
    return fetch(target.href, { cache: 'no-store', credentials: 'omit' }).then(async (res) => {
      const text = await res.text();
      if (!res.ok) {
        let why = '';
        try {
          const body = JSON.parse(text);
          const open = body && body.error ? openShoeText(body.error) : null;
          if (open) why = `: ${open}`;
          else if (body && body.error && body.error.message) why = `: ${body.error.message}`;
        } catch (_) {
          /* not JSON */
        }
        throw new Error(`HTTP ${res.status}${why}`);
      }
      return text;
    });
  }

  const MAX_PAGES = 64;

  /** The shoe id in a proof URL's path (/v1/shoes/{shoe_id}/proof), or null. */
  function shoeOfUrl(url) {
    if (!url || !/^https?:/i.test(url)) return null;
    const m = /\/v1\/shoes\/([^/?#]+)\/proof$/.exec(new URL(url).pathname);
    return m ? decodeURIComponent(m[1]) : null;
  }

  /**
   * A proof from its URL: page 1 and, for a paged proof, every page its `page.next` links (a path
   * of the same API, /v1/shoes/…), in order. Resolves to the parsed document (a v1 proof, one
   * page, or the list of pages); rejects with a plain reason.
   */
  async function loadProofUrl(url, base) {
    const first = new URL(url, base).href;
    const parse = (text, where) => {
      try {
        return JSON.parse(text);
      } catch (e) {
        throw new Error(`${where} is not JSON (${e.message})`);
      }
    };
    const doc = parse(await loadUrl(first, base), 'the proof');
    if (!isObject(doc) || !isObject(doc.page)) return doc;
    const pages = [doc];
    let at = first;
    for (let next = doc.page.next; next !== null && next !== undefined; next = pages[pages.length - 1].page.next) {
      if (typeof next !== 'string' || !next.startsWith('/v1/shoes/')) {
        throw new Error(`page ${pages.length} links to ${show(next)}, not to a proof page of its API`);
      }
      if (pages.length >= MAX_PAGES) throw new Error(`the proof links more than ${MAX_PAGES} pages`);
      at = new URL(next, at).href;
      const page = parse(await loadUrl(at, base), `page ${pages.length + 1}`);
      if (!isObject(page) || !isObject(page.page)) throw new Error(`${at} is not a proof page`);
      pages.push(page);
    }
    return pages;
  }

  /** Several texts (files) holding the pages of one proof → the list of pages. */
  function combineTexts(texts, names) {
    if (texts.length === 1) return texts[0];
    const pages = [];
    texts.forEach((text, i) => {
      let doc;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        throw new Error(`${names[i]} is not JSON (${e.message})`);
      }
      const found = isObject(doc) && Array.isArray(doc.pages) ? doc.pages
        : Array.isArray(doc) ? doc : isObject(doc) && 'page' in doc ? [doc] : null;
      if (!found) throw new Error(`${names[i]} holds no proof page (several files are the pages of one proof)`);
      pages.push(...found);
    });
    return pages;
  }

  // ---------------------------------------------------------------------------------------------
  // The page

  const SUIT = { S: ['♠', 'spades'], H: ['♥', 'hearts'], D: ['♦', 'diamonds'], C: ['♣', 'clubs'] };
  const RANK = { A: 'A', T: '10', J: 'J', Q: 'Q', K: 'K' };

  function initPage(doc, win) {
    const $ = (id) => doc.getElementById(id);
    const ui = {
      text: $('proof-text'),
      verifyText: $('verify-text'),
      file: $('proof-file'),
      url: $('proof-url'),
      fetchUrl: $('fetch-url'),
      box: $('verdict-box'),
      verdict: $('verdict'),
      detail: $('verdict-detail'),
      source: $('proof-source'),
      checks: $('checks'),
      summary: $('summary'),
      bead: $('bead-plate'),
      big: $('big-road'),
      rounds: $('rounds-body'),
      roundCount: $('round-count'),
      results: $('results'),
      keysText: $('keys-text'),
      allowUnsigned: $('allow-unsigned'),
      interventions: $('interventions'),
      bettorsPanel: $('bettors-panel'),
      bettors: $('bettors-body'),
      refFilter: $('ref-filter'),
      expectedShoe: $('expected-shoe'),
      subject: $('subject'),
      linkNote: $('link-note'),
      receiptFile: $('receipt-file'),
      receiptResult: $('receipt-result'),
    };
    // The receipt to check beside the proof (a file chosen, or ?receipt=URL), and the last report.
    let receipt = null;
    let lastReport = null;
    let job = 0;
    const params = new URLSearchParams(win.location.search);
    // Served by an API (GET /verify): the page trusts that API's own keys alone. A link cannot
    // choose other keys, unsigned proofs or carry the proof itself: only the person on the page
    // can (the key set field, the checkbox, pasting), and the verdict then says so, never green.
    const served = /^https?:$/.test(win.location.protocol);
    const ignored = served ? ['keys', 'allow_unsigned'].filter((k) => params.has(k)) : [];
    if (!served && params.get('allow_unsigned') === '1') ui.allowUnsigned.checked = true;

    const h = (tag, attrs, ...kids) => {
      const node = doc.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'text') node.textContent = v;
        else node.setAttribute(k, v === true ? '' : String(v));
      }
      for (const kid of kids) if (kid != null) node.append(kid);
      return node;
    };

    function setVerdict(state, word, detail) {
      ui.verdict.dataset.verdict = state;
      ui.box.dataset.verdict = state;
      ui.verdict.textContent = word;
      ui.detail.textContent = detail;
    }

    function card(code) {
      if (typeof code !== 'string' || code.length !== 2 || !SUIT[code[1]]) {
        return h('span', { class: 'card card-bad', text: show(code), title: 'not a card code' });
      }
      const [sym, suitName] = SUIT[code[1]];
      const rank = RANK[code[0]] || code[0];
      return h('span', {
        class: `card suit-${code[1]}`,
        'data-code': code,
        title: code,
        'aria-label': `${rank} of ${suitName}`,
        text: `${rank}${sym}`,
      });
    }

    function cards(codes) {
      const wrap = h('span', { class: 'cards' });
      for (const c of Array.isArray(codes) ? codes : []) wrap.append(card(c));
      return wrap;
    }

    function resultBadge(result) {
      const word = { banker: 'Banker', player: 'Player', tie: 'Tie' }[result];
      return h('span', { class: `result result-${word ? result : 'unknown'}`, text: word || show(result) });
    }

    const signed = (n) => (n > 0 ? `+${n}` : String(n));

    /** The refs of a round's bets (and its player-banker), shortened; the full ref as a title. */
    function refs(row) {
      const raw = rawRound(row);
      const wrap = h('span', { class: 'refs' });
      const seen = new Set();
      const add = (ref, pb) => {
        if (typeof ref !== 'string' || seen.has(ref)) return;
        seen.add(ref);
        wrap.append(h('span', { class: `ref${pb ? ' ref-pb' : ''}`, 'data-ref': ref, title: ref,
          text: ref.length > 11 ? `${ref.slice(0, 9)}…` : ref }));
      };
      for (const b of Array.isArray(raw.bets) ? raw.bets : []) if (isObject(b)) add(b.bettor_ref, false);
      if (isObject(raw.player_banker)) add(raw.player_banker.bettor_ref, true);
      return wrap;
    }
    let lastRounds = [];
    const rawRound = (row) => (isObject(lastRounds[row.index]) ? lastRounds[row.index] : {});

    /** Marks the rounds and the bettor row of one ref (a player's own, shown by the operator). */
    function highlightRef(ref) {
      for (const el of doc.querySelectorAll('#rounds-body tr.round')) {
        const mine = !!ref && !!el.querySelector(`.ref[data-ref="${CSS.escape(ref)}"]`);
        el.classList.toggle('mine', mine);
      }
      for (const el of doc.querySelectorAll('#bettors-body tr')) {
        el.classList.toggle('mine', !!ref && el.dataset.ref === ref);
      }
    }

    function render(report, source) {
      lastRounds = report.proof && Array.isArray(report.proof.rounds) ? report.proof.rounds : [];
      ui.results.hidden = false;
      ui.source.textContent = source;

      // Checks.
      ui.checks.replaceChildren(
        ...report.checks.map((c) =>
          h('li', { class: c.ok === true ? 'ok' : c.ok === false ? 'bad' : 'info', 'data-check': c.id },
            h('span', {
              class: 'mark',
              'aria-hidden': 'true',
              text: c.ok === true ? '✓' : c.ok === false ? '✗' : 'i',
            }),
            h('span', { class: 'visually-hidden', text: c.ok === true ? 'passed: ' : c.ok === false ? 'failed: ' : 'note: ' }),
            h('strong', { text: c.label }),
            h('span', { class: 'check-detail', text: c.detail || '' }))),
      );

      // Summary of the proof.
      const p = report.proof || {};
      const shoe = report.shoe;
      const rows = [
        ['Table', p.table_id],
        ['Shoe', p.shoe_id],
        ['Shoe number', p.shoe_number],
        ['Anchor', p.anchor],
        ['Server seed', p.server_seed],
        ['Client seed', p.client_seed === undefined ? undefined : JSON.stringify(p.client_seed)],
        ['Client hash', p.client_hash],
        ['Client seed given', p.client_seed_given_at === undefined ? undefined
          : `${p.client_seed_given_at}, in advance (the shoe was committed by the table itself at ${p.committed_at})`],
        ['Rules', isObject(p.rules) ? JSON.stringify(p.rules) : p.rules],
        ['Cut card', shoe ? (shoe.cut_index === null ? 'none' : `before position ${shoe.cut_index}`) : undefined],
        ['Burn', shoe ? (shoe.burn_exposed ? `${shoe.burn_exposed} exposed, ${plural(shoe.burn, 'card')} burned` : 'none') : undefined],
        ['Rounds', shoe ? `${report.info.rounds_in_proof} in the proof, ${report.info.rounds_by_rules} by the rules` : report.info.rounds_in_proof],
        ['End', p.end_reason],
        ['Beacon', report.beacon === null ? undefined : report.beacon === 'drand quicknet'
          ? 'drand quicknet (the League of Entropy): every round\'s beacon checked against drand\'s published key'
          : 'test beacon: its own key, NOT drand (a local or test run)'],
        ['Pages', report.pages],
        ['Books', (p.rounds || []).some((r) => isObject(r) && isObject(r.book))
          ? `${p.spec}: ${(p.rounds || []).filter((r) => isObject(r) && isObject(r.book)).length} rounds with a book of spectators' slips (root and count per round below)`
          : undefined],
        ['Signed by', report.signature
          ? `key ${report.signature.key_id} (${report.signature.source}), ${report.signature.signed_at}`
          : undefined],
      ];
      ui.summary.replaceChildren();
      for (const [k, v] of rows) {
        if (v === undefined || v === null) continue;
        ui.summary.append(h('dt', { text: k }), h('dd', { class: 'mono', text: show(v) }));
      }

      // Roads, drawn from the proof's rounds; rounds that do not match are outlined.
      const flat = report.rounds
        .filter((r) => r.proof && !r.proof.beacon_void) // a beacon void has no cards, no result
        .map((r) => ({ ...r.proof, round_number: r.round_number, flagged: r.status !== 'ok' && r.status !== 'unchecked' }));
      const R = roads();
      ui.bead.replaceChildren(R.renderBeadPlate(doc, flat));
      ui.big.replaceChildren(R.renderBigRoad(doc, flat));

      // Rounds.
      ui.roundCount.textContent = `(${plural(flat.length, 'round')})`;
      const body = [];
      for (const r of report.rounds) {
        const pr = r.proof;
        const status = r.status;
        const ok = status === 'ok';
        const markText = { ok: '✓', mismatch: '✗', missing: '✗', unchecked: '?', 'not dealt': '–', 'beacon void': '✓' }[status];
        const label = {
          ok: 'matches',
          mismatch: 'does not match',
          missing: 'missing from the proof',
          unchecked: 'not checked',
          'not dealt': 'not dealt (shoe closed early)',
          'beacon void': 'voided beacon_unavailable: no beacon in time, no cards; its lock and price match',
        }[status];
        if (status === 'not dealt') continue;
        const tr = h('tr', {
          class: `round round-${status.replace(' ', '-')}`,
          'data-round': r.round_number,
          'data-status': status,
        });
        const markCell = h('td', { class: 'mark-cell' },
          h('span', { class: `mark ${ok || status === 'beacon void' ? 'ok' : status === 'unchecked' ? 'info' : 'bad'}`, 'aria-hidden': 'true', text: markText }),
          h('span', { class: 'visually-hidden', text: label }));
        if (pr) {
          tr.append(
            h('th', { scope: 'row', text: String(r.round_number) }),
            h('td', { class: 'num', text: show(pr.start) }),
            h('td', {}, cards(pr.player)),
            h('td', { class: 'num', text: show(pr.player_total) }),
            h('td', {}, cards(pr.banker)),
            h('td', { class: 'num', text: show(pr.banker_total) }),
            h('td', {}, refs(r)),
            h('td', {}, pr.beacon_void ? null : resultBadge(pr.result), pr.voided ? h('span', { class: 'tag', text: 'void' }) : null,
              pr.beacon_void ? h('span', { class: 'tag', text: 'beacon_unavailable' }) : null,
              pr.settlement != null ? h('span', { class: 'tag', text: 'settled' }) : null,
              pr.book ? h('span', {
                class: 'tag book', 'data-book-root': show(pr.book.root), 'data-book-count': show(pr.book.count),
                title: `the book locked ${pr.lock ? `with round ${r.round_number}, before beacon round ` +
                  show(pr.lock.beacon_round) : 'at the deal'}: root ${show(pr.book.root)}`,
                text: `book: ${plural(Number(pr.book.count) || 0, 'slip')}, root ${show(pr.book.root).slice(0, 12)}…`,
              }) : null),
            markCell,
          );
        } else {
          tr.append(h('th', { scope: 'row', text: String(r.round_number) }),
            h('td', { colspan: 7, class: 'missing', text: 'missing from the proof' }), markCell);
        }
        body.push(tr);
        if (r.mismatches.length) {
          const list = h('ul', { class: 'mismatches' });
          for (const m of r.mismatches) {
            const li = h('li', {}, h('strong', { text: `${m.field}: ` }));
            if (/cards$/.test(m.field) && Array.isArray(m.expected)) {
              li.append('expected ', cards(m.expected), ', found ',
                Array.isArray(m.found) ? cards(m.found) : show(m.found));
            } else {
              li.append(m.message.replace(/^round \d+, [^:]+: /, ''));
            }
            list.append(li);
          }
          body.push(h('tr', { class: 'round-detail', 'data-round': r.round_number },
            h('td', {}), h('td', { colspan: 8 }, list)));
        }
      }
      ui.rounds.replaceChildren(...body);

      // What the proof is of (table, shoe) and whether it is the shoe asked for.
      ui.subject.hidden = !report.subject;
      ui.subject.textContent = report.subject ? `Proof of: ${report.subject.words}` : '';

      // The interventions line, and the bettors (by ref) of a v2 proof.
      ui.interventions.hidden = !report.interventionsLine;
      ui.interventions.textContent = report.interventionsLine
        ? `Interventions: ${report.interventionsLine}` : '';
      ui.bettorsPanel.hidden = !report.bettors.length;
      ui.bettors.replaceChildren(...report.bettors.map((b) => h('tr', { 'data-ref': b.bettor_ref },
        h('td', { class: 'mono', text: b.bettor_ref }),
        h('td', { text: b.player_banker ? 'player-banker' : 'bettor' }),
        h('td', { class: 'num', text: String(b.rounds.length) }),
        h('td', { class: 'num', text: String(b.staked) }),
        h('td', { class: 'num', text: signed(b.net) }),
        h('td', { class: 'num', text: b.voided_net ? signed(b.voided_net) : '' }))));
      highlightRef(ui.refFilter.value.trim());
    }

    const NO_KEYS =
      'signature not checked: no signing keys (paste the JWK set GET /v1/signing-keys serves, ' +
      'or open this page from the API that published the proof)';

    /**
     * The signing keys: the pasted JWK set, else ?keys=<URL>, else GET /v1/signing-keys of this
     * page's own origin (the API serving /verify), else of the proof URL's origin.
     */
    async function resolveKeys(proofUrl) {
      const pasted = ui.keysText.value.trim();
      if (pasted) {
        try {
          return { keys: JSON.parse(pasted), keysSource: 'the pasted key set' };
        } catch (e) {
          return { keys: null, keysError: `signature not checked: the pasted key set is not JSON (${e.message})` };
        }
      }
      let url = null;
      const given = served ? null : params.get('keys');
      if (given) url = new URL(given, win.location.href).href;
      else if (served) url = `${win.location.origin}/v1/signing-keys`;
      else if (proofUrl && /^https?:/i.test(proofUrl)) url = `${new URL(proofUrl).origin}/v1/signing-keys`;
      if (!url) return { keys: null, keysError: NO_KEYS };
      try {
        return { keys: JSON.parse(await loadUrl(url, win.location.href)), keysSource: describeUrl(url) };
      } catch (e) {
        return {
          keys: null,
          keysError: `signature not checked: cannot read the signing keys from ${describeUrl(url)}: ${e.message}`,
        };
      }
    }

    /** The shoe the person expects: typed on the page, else the id in the proof URL's path. */
    function askedShoe(proofUrl) {
      const typed = ui.expectedShoe.value.trim();
      if (typed) return typed;
      return shoeOfUrl(proofUrl);
    }

    /**
     * Why a proof that checks out is still not confirmed by the API serving this page: what the
     * person chose instead of its own keys (empty: confirmed; always empty on a file:// page).
     */
    function choices(report, keys, proofUrl) {
      if (!served) return [];
      const out = [];
      if (keys.keysSource === 'the pasted key set') {
        out.push('its signature was checked with the key set you pasted, not with this API\'s own keys');
      } else if (!report.signature) {
        out.push('it is unsigned (accepted because you allowed unsigned proofs)');
      }
      if (!proofUrl) out.push('it is a proof you pasted or chose as a file, not one read from a URL');
      if (!report.subject || !report.subject.matches) {
        out.push('it is not checked against a shoe you named (type your shoe\'s id under "Your shoe")');
      }
      return out;
    }

    async function run(getDocument, source, proofUrl) {
      const mine = ++job;
      setVerdict('checking', 'checking…', `Verifying ${source}…`);
      let doc;
      try {
        doc = await getDocument();
      } catch (e) {
        if (mine !== job) return;
        ui.results.hidden = true;
        setVerdict('error', 'NOT verified', `Could not load the proof from ${source}: ${e.message}`);
        return;
      }
      if (mine !== job) return;
      if (typeof doc === 'string') {
        try {
          doc = JSON.parse(doc);
        } catch (_) {
          /* verifyProof words it */
        }
      }
      let report;
      let keys = {};
      try {
        keys = isSigned(doc) ? await resolveKeys(proofUrl) : {};
        if (mine !== job) return;
        report = await verifyProof(doc, {
          ...keys, allowUnsigned: ui.allowUnsigned.checked, shoeId: askedShoe(proofUrl),
        });
      } catch (e) {
        report = null;
        if (mine !== job) return;
        setVerdict('failed', 'NOT verified', `The verifier stopped: ${e.message}`);
        return;
      }
      if (mine !== job) return;
      render(report, source);
      lastReport = report;
      showReceipt();
      const chosen = report.verified ? choices(report, keys, proofUrl) : [];
      if (chosen.length) {
        setVerdict('unconfirmed', 'NOT confirmed by this API',
          `The checks pass, but on what you chose: ${chosen.join('; ')}. Nothing shows that ` +
            `${win.location.origin} published this proof for your shoe. ${report.reason}`);
      } else if (report.verified && report.beacon !== null && report.beacon !== 'drand quicknet') {
        setVerdict('unconfirmed', 'NOT trustless: a test beacon',
          'The checks pass, but its rounds were keyed by a test beacon with its own key, not drand: ' +
            'whoever holds that key could know every card before the bets locked (a local or test run). ' +
            report.reason);
      } else {
        setVerdict(report.verified ? 'verified' : 'failed', report.verdict, report.reason);
      }
      win.BaccVerifyLastReport = report; // handy in the console
    }

    /** The receipt's check against the last proof (only a proof that verified counts). */
    async function showReceipt() {
      if (!receipt) return;
      const report = lastReport;
      ui.receiptResult.hidden = false;
      let state = 'pending';
      let text = 'Receipt: waiting for a proof to check it against';
      if (receipt.error) {
        state = 'failed';
        text = `Receipt: NOT verified: could not read ${receipt.source}: ${receipt.error}`;
      } else if (report && !report.verified) {
        state = 'failed';
        text = 'Receipt: not checked: the proof itself did not verify';
      } else if (report) {
        const v = await receipts().verifyReceipt(report.proof, receipt.doc);
        if (report !== lastReport) return;
        state = v.ok ? 'verified' : 'failed';
        text = v.ok ? `Receipt: verified: ${v.line} (${v.note})` : `Receipt: NOT verified: ${v.line}`;
      }
      ui.receiptResult.dataset.receipt = state;
      ui.receiptResult.textContent = text;
    }

    async function loadReceipt(getText, source) {
      try {
        receipt = { doc: JSON.parse(await getText()), source };
      } catch (e) {
        receipt = { error: e.message, source };
      }
      await showReceipt();
    }

    const runText = () => run(async () => ui.text.value, 'the pasted proof');
    const runUrl = (u) =>
      run(() => loadProofUrl(u, win.location.href), describeUrl(u), new URL(u, win.location.href).href);
    const describeUrl = (u) => (/^data:/i.test(u) ? 'a data: URL' : u);
    const runFiles = (files) => {
      const list = [...files];
      const names = list.map((f) => f.name);
      const what = list.length === 1 ? `the file ${names[0]}` : `the files ${names.join(', ')}`;
      run(async () => combineTexts(await Promise.all(list.map((f) => f.text())), names), what);
    };

    ui.verifyText.addEventListener('click', runText);
    ui.text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) runText();
    });
    ui.file.addEventListener('change', () => {
      if (ui.file.files && ui.file.files.length) runFiles(ui.file.files);
    });
    ui.fetchUrl.addEventListener('click', () => {
      const u = ui.url.value.trim();
      if (u) runUrl(u);
    });
    ui.url.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        ui.fetchUrl.click();
      }
    });
    // Dropping a file anywhere on the input panel.
    const drop = $('input-panel');
    drop.addEventListener('dragover', (e) => e.preventDefault());
    drop.addEventListener('drop', (e) => {
      const files = e.dataTransfer && e.dataTransfer.files;
      if (!files || !files.length) return;
      e.preventDefault();
      runFiles(files);
    });

    if (!win.crypto || !win.crypto.subtle) {
      setVerdict('error', 'NOT verified',
        'This browser offers no WebCrypto here. Open the page from a file, from https:// or ' +
          'from http://localhost.');
      return;
    }
    ui.refFilter.addEventListener('input', () => highlightRef(ui.refFilter.value.trim()));
    ui.receiptFile.addEventListener('change', () => {
      const f = ui.receiptFile.files && ui.receiptFile.files[0];
      if (f) loadReceipt(() => f.text(), `the file ${f.name}`);
    });
    const receiptUrl = params.get('receipt');
    const receiptLoaded = receiptUrl
      ? loadReceipt(() => loadUrl(receiptUrl, win.location.href), receiptUrl)
      : Promise.resolve();
    setVerdict('pending', 'waiting for a proof', 'Paste a proof, choose a file or give its URL.');
    const fromQuery = params.get('proof');
    if (ignored.length) {
      ui.linkNote.hidden = false;
      ui.linkNote.textContent = `This link asked the page to trust what it carries ` +
        `(${ignored.map((k) => `?${k}=`).join(', ')}): ignored. This page trusts only the keys of ` +
        `${win.location.origin}/v1/signing-keys; to use other keys or accept an unsigned proof, ` +
        'choose it on the page.';
    }
    if (fromQuery && served && /^data:/i.test(fromQuery)) {
      setVerdict('error', 'NOT verified',
        'A link cannot carry the proof itself (a data: URL): this page reads proofs from their ' +
          'URL. To check a proof you hold, paste it or choose its file.');
    } else if (fromQuery) {
      if (!/^data:/i.test(fromQuery)) ui.url.value = fromQuery;
      receiptLoaded.then(() => runUrl(fromQuery));
    }
  }

  const api = Object.freeze({
    verifyProof, proofPages, isSigned, shoeOfUrl, loadUrl, loadProofUrl, combineTexts, flatRound, show, initPage,
    PAY_TABLES,
  });
  root.BaccVerify = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
  if (typeof document !== 'undefined' && typeof window !== 'undefined' && document.getElementById('verdict')) {
    const start = () => {
      try {
        pf();
        roads();
        receipts();
      } catch (e) {
        const v = document.getElementById('verdict');
        v.dataset.verdict = 'error';
        v.textContent = 'NOT verified';
        document.getElementById('verdict-detail').textContent =
          `The page is incomplete: ${e.message}.`;
        return;
      }
      initPage(document, window);
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
    else start();
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

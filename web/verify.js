/*
 * The browser verifier's logic and page controller (web/verify.html).
 *
 * It checks a bacc-pf-v1 shoe proof with web/bacc-pf-v1.js (an independent implementation of
 * shared/spec/fairness-v1.md; WebCrypto for SHA-256 and HMAC) and web/roads.js. It shares no code
 * with the service. One file, no imports:
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
      voided: round.voided === true || round.void === true || round.status === 'void',
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Verification

  /**
   * Verifies a proof (an object, or its JSON text). Never throws for a bad proof: the answer is a
   * report {verified, verdict, reason, mismatches, checks, rounds, shoe, proof, info}.
   * `mismatches` are in the order found: header (spec, fields, chain, client hash, rules), then
   * rounds in order, then the optional shoe-level fields. `reason` words the first one.
   */
  async function verifyProof(input) {
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
    };
    const fail = (m) => {
      m.message = m.message || wordMismatch(m);
      mismatches.push(m);
      return m;
    };
    const check = (id, label, ok, detail) => checks.push({ id, label, ok, detail });
    const finish = () => {
      report.verified = mismatches.length === 0;
      report.verdict = report.verified ? 'verified' : 'NOT verified';
      report.reason = report.verified ? summaryLine(report) : mismatches[0].message;
      return report;
    };

    // Parse.
    let proof = input;
    if (typeof input === 'string') {
      try {
        proof = JSON.parse(input);
      } catch (e) {
        fail({ where: 'proof', field: 'JSON', message: `the proof is not valid JSON (${e.message})` });
        check('json', 'Proof is JSON', false, mismatches[0].message);
        return finish();
      }
    }
    if (!isObject(proof)) {
      fail({ where: 'proof', field: 'JSON', message: 'the proof must be a JSON object' });
      check('json', 'Proof is a JSON object', false, mismatches[0].message);
      return finish();
    }
    report.proof = proof;
    const B = pf();

    // Spec and fields.
    if (proof.spec !== SPEC) {
      fail({
        where: 'proof',
        field: 'spec',
        expected: SPEC,
        found: proof.spec,
        message: `the proof is for spec ${show(proof.spec)}, this page verifies ${SPEC}`,
      });
      check('spec', `Spec ${SPEC}`, false, mismatches[mismatches.length - 1].message);
    } else {
      check('spec', `Spec ${SPEC}`, true, SPEC);
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
    if (rulesOk && numberOk && 'server_seed' in proof && 'client_seed' in proof) {
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
    const closedEarly = EARLY_END.has(endReason);
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
        ['first_round_start', 'first round start', derived.length ? derived[0].start : undefined],
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

    // Settlements are money, not cards: the page does not recompute them.
    const settled = proofRounds.filter((r) => isObject(r) && r.settlement != null).length;
    report.info.settlements = settled;
    if (settled) {
      check('settlements', 'Settlements', null,
        `${plural(settled, 'round')} ${settled === 1 ? 'carries' : 'carry'} a settlement; ` +
          'this page checks cards, not money ' +
          '(run "baccarat verify" to recompute settlements)');
    }

    report.info.rounds_in_proof = proofRounds.length;
    report.info.rounds_by_rules = shoe ? derived.length : null;
    return finish();
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
    return s;
  }

  // ---------------------------------------------------------------------------------------------
  // Loading a proof

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
          if (body && body.error && body.error.message) why = `: ${body.error.message}`;
        } catch (_) {
          /* not JSON */
        }
        throw new Error(`HTTP ${res.status}${why}`);
      }
      return text;
    });
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
    };
    let job = 0;

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

    function render(report, source) {
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
        ['Shoe number', p.shoe_number],
        ['Anchor', p.anchor],
        ['Server seed', p.server_seed],
        ['Client seed', p.client_seed === undefined ? undefined : JSON.stringify(p.client_seed)],
        ['Client hash', p.client_hash],
        ['Rules', isObject(p.rules) ? JSON.stringify(p.rules) : p.rules],
        ['Cut card', shoe ? (shoe.cut_index === null ? 'none' : `before position ${shoe.cut_index}`) : undefined],
        ['Burn', shoe ? (shoe.burn_exposed ? `${shoe.burn_exposed} exposed, ${plural(shoe.burn, 'card')} burned` : 'none') : undefined],
        ['Rounds', shoe ? `${report.info.rounds_in_proof} in the proof, ${report.info.rounds_by_rules} by the rules` : report.info.rounds_in_proof],
        ['End', p.end_reason],
      ];
      ui.summary.replaceChildren();
      for (const [k, v] of rows) {
        if (v === undefined || v === null) continue;
        ui.summary.append(h('dt', { text: k }), h('dd', { class: 'mono', text: show(v) }));
      }

      // Roads, drawn from the proof's rounds; rounds that do not match are outlined.
      const flat = report.rounds
        .filter((r) => r.proof)
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
        const markText = { ok: '✓', mismatch: '✗', missing: '✗', unchecked: '?', 'not dealt': '–' }[status];
        const label = {
          ok: 'matches',
          mismatch: 'does not match',
          missing: 'missing from the proof',
          unchecked: 'not checked',
          'not dealt': 'not dealt (shoe closed early)',
        }[status];
        if (status === 'not dealt') continue;
        const tr = h('tr', {
          class: `round round-${status.replace(' ', '-')}`,
          'data-round': r.round_number,
          'data-status': status,
        });
        const markCell = h('td', { class: 'mark-cell' },
          h('span', { class: `mark ${ok ? 'ok' : status === 'unchecked' ? 'info' : 'bad'}`, 'aria-hidden': 'true', text: markText }),
          h('span', { class: 'visually-hidden', text: label }));
        if (pr) {
          tr.append(
            h('th', { scope: 'row', text: String(r.round_number) }),
            h('td', { class: 'num', text: show(pr.start) }),
            h('td', {}, cards(pr.player)),
            h('td', { class: 'num', text: show(pr.player_total) }),
            h('td', {}, cards(pr.banker)),
            h('td', { class: 'num', text: show(pr.banker_total) }),
            h('td', {}, resultBadge(pr.result), pr.voided ? h('span', { class: 'tag', text: 'void' }) : null,
              pr.settlement != null ? h('span', { class: 'tag', text: 'settled' }) : null),
            markCell,
          );
        } else {
          tr.append(h('th', { scope: 'row', text: String(r.round_number) }),
            h('td', { colspan: 6, class: 'missing', text: 'missing from the proof' }), markCell);
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
            h('td', {}), h('td', { colspan: 7 }, list)));
        }
      }
      ui.rounds.replaceChildren(...body);
    }

    async function run(getText, source) {
      const mine = ++job;
      setVerdict('checking', 'checking…', `Verifying ${source}…`);
      let text;
      try {
        text = await getText();
      } catch (e) {
        if (mine !== job) return;
        ui.results.hidden = true;
        setVerdict('error', 'NOT verified', `Could not load the proof from ${source}: ${e.message}`);
        return;
      }
      if (mine !== job) return;
      let report;
      try {
        report = await verifyProof(text);
      } catch (e) {
        report = null;
        if (mine !== job) return;
        setVerdict('failed', 'NOT verified', `The verifier stopped: ${e.message}`);
        return;
      }
      if (mine !== job) return;
      render(report, source);
      setVerdict(report.verified ? 'verified' : 'failed', report.verdict, report.reason);
      win.BaccVerifyLastReport = report; // handy in the console
    }

    const runText = () => run(async () => ui.text.value, 'the pasted proof');
    const runUrl = (u) => run(() => loadUrl(u, win.location.href), describeUrl(u));
    const describeUrl = (u) => (/^data:/i.test(u) ? 'a data: URL' : u);

    ui.verifyText.addEventListener('click', runText);
    ui.text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) runText();
    });
    ui.file.addEventListener('change', () => {
      const f = ui.file.files && ui.file.files[0];
      if (f) run(() => f.text(), `the file ${f.name}`);
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
      const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (!f) return;
      e.preventDefault();
      run(() => f.text(), `the file ${f.name}`);
    });

    if (!win.crypto || !win.crypto.subtle) {
      setVerdict('error', 'NOT verified',
        'This browser offers no WebCrypto here. Open the page from a file, from https:// or ' +
          'from http://localhost.');
      return;
    }
    setVerdict('pending', 'waiting for a proof', 'Paste a proof, choose a file or give its URL.');
    const fromQuery = new URLSearchParams(win.location.search).get('proof');
    if (fromQuery) {
      if (!/^data:/i.test(fromQuery)) ui.url.value = fromQuery;
      runUrl(fromQuery);
    }
  }

  const api = Object.freeze({ verifyProof, loadUrl, flatRound, show, initPage });
  root.BaccVerify = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
  if (typeof document !== 'undefined' && typeof window !== 'undefined' && document.getElementById('verdict')) {
    const start = () => {
      try {
        pf();
        roads();
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

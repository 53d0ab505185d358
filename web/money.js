/*
 * The browser verifier's settlement engine: the money of a round recomputed from the public
 * proof (docs/bacc-pf-v1.md, "Pay tables", "Rounds" and "bacc-pf-v1.1"; docs/api.md, "Amounts,
 * commission and rounding"). Written from those pages, sharing no code with the service, so a
 * proof's money is checked by a second implementation of the pay tables and the rounding.
 *
 * Exact: every amount is a BigInt of minor units while it is computed, every pay an exact
 * fraction [numerator, denominator] of BigInts; no floating-point number touches money. Amounts
 * go back to Numbers only at the end (a proof's integers are within ±(2^53 − 1)).
 *
 *   - PAY_TABLES: every published version's canonical description (its SHA-256 is published);
 *   - priced(config): the table's effective pays (its version, banker_pays, dragon_table);
 *   - roundFacts(player, banker): what the bets are graded on, from the two hands' card codes;
 *   - settle(config, facts, bets, playerBanker, idField): a settlement's money in the proof's form;
 *   - slip(config, facts, lines): a spectator's slip settled alone (a book leaf's money);
 *   - bookTotals(config, facts, slips): the money of a book's slips summed as book.totals;
 *   - firstDifference(path, expected, found): where a claimed document departs from ours.
 *
 * One file, no imports: in a page, a classic <script> (globalThis.BaccMoney); under Node,
 * require('./money.js').
 */
(function (root) {
  'use strict';

  /** Every published pay table, as tests/vectors/pay_tables.json describes it. Never changed. */
  const PAY_TABLES = Object.freeze({
    'star-city@1': {
      version: 'star-city@1',
      name: 'star-city',
      commission_rate: '1/100',
      pays: { banker: '1', player: '1', tie: '8', banker_pair: '11', player_pair: '11' },
      dragon_tables: {},
    },
    'bid-squeeze@1': {
      version: 'bid-squeeze@1',
      name: 'bid-squeeze',
      commission_rate: '0',
      pays: {
        banker: '19/20', player: '1', tie: '8', banker_pair: '11', player_pair: '11',
        banker_no_commission: { win: '1', win_with_six: '1/2' },
        big: '1/2', small: '3/2',
        lucky6: { two_cards: '12', three_cards: '20' },
        any_pair: '5', perfect_pair: '25',
        player_dragon: { table: 'seed', natural_win: '1', margins: { 4: '1', 5: '2', 6: '3', 7: '5', 8: '10', 9: '30' } },
        banker_dragon: { table: 'seed', natural_win: '1', margins: { 4: '1', 5: '2', 6: '3', 7: '5', 8: '10', 9: '30' } },
      },
      dragon_tables: {
        seed: { 4: '1', 5: '2', 6: '3', 7: '5', 8: '10', 9: '30' },
        common: { 4: '1', 5: '2', 6: '4', 7: '6', 8: '10', 9: '30' },
      },
    },
  });

  /**
   * What a configuration leaves out (tables opened before it named them): banker_pays is the
   * profile's first choice for its banking, dragon_table the profile's first table, rounding
   * floor_house_favour (docs/api.md, POST /v1/tables).
   */
  const DEFAULT_BANKER_PAYS = {
    'star-city': { player_banker: '1', house: '0.95' },
    'bid-squeeze': { player_banker: '0.95', house: '0.95' },
  };
  const DEFAULT_DRAGON = { 'star-city': null, 'bid-squeeze': 'seed' };
  const BANKER_PAYS = { '1': '1', '0.95': '19/20' };
  const ROUNDINGS = ['floor_house_favour', 'half_up'];
  /** What a player-banker covers, by profile; the house covers every other line. */
  const PLAYER_BANKER_COVERS = {
    'star-city': ['banker', 'player'],
    'bid-squeeze': ['banker', 'player', 'banker_no_commission'],
  };

  class MoneyError extends Error {}

  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const own = (o, k) => isObject(o) && Object.prototype.hasOwnProperty.call(o, k);

  /** "19/20" → [19n, 20n] (lowest terms, as published). */
  function fraction(text) {
    const m = /^(0|[1-9][0-9]*)(?:\/([1-9][0-9]*))?$/.exec(String(text));
    if (!m) throw new MoneyError(`not an exact fraction: ${JSON.stringify(text)}`);
    return [BigInt(m[1]), BigInt(m[2] || '1')];
  }
  const gcd = (a, b) => (b === 0n ? a : gcd(b, a % b));
  /** A fraction as the proof writes a multiplier: "19/20", "1", "0". */
  function fractionText([n, d]) {
    const g = n === 0n ? d : gcd(n, d);
    return d / g === 1n ? `${n / g}` : `${n / g}/${d / g}`;
  }

  /** The version a configuration names (one naming none: its profile's first). */
  function versionOf(config) {
    return own(config, 'pay_table') ? config.pay_table : `${isObject(config) ? config.profile : undefined}@1`;
  }

  /**
   * The pays a table settles with: its published version with the table's banker_pays and
   * dragon_table applied, its rounding, commission rate and who covers what. Throws MoneyError
   * when the configuration names something not published.
   */
  function priced(config) {
    if (!isObject(config)) throw new MoneyError('no table configuration (table_config)');
    // a proof's rounds share one configuration object: priced once (a changed object is new)
    const known = PRICED.get(config);
    if (known && known.key === JSON.stringify(config)) return known.table;
    const table = pricedAnew(config);
    PRICED.set(config, { key: JSON.stringify(config), table });
    return table;
  }

  const PRICED = new WeakMap();

  function pricedAnew(config) {
    const version = versionOf(config);
    const t = own(PAY_TABLES, version) ? PAY_TABLES[version] : null;
    if (!t || t.name !== config.profile) {
      throw new MoneyError(`${JSON.stringify(version)} is not a published pay table of ${JSON.stringify(config.profile)}`);
    }
    const banking = config.banking;
    if (banking !== 'house' && banking !== 'player_banker') throw new MoneyError(`unknown banking ${JSON.stringify(banking)}`);
    const bankerPays = config.banker_pays == null ? DEFAULT_BANKER_PAYS[t.name][banking] : config.banker_pays;
    if (!own(BANKER_PAYS, bankerPays)) throw new MoneyError(`unknown banker_pays ${JSON.stringify(bankerPays)}`);
    const rounding = config.rounding == null ? 'floor_house_favour' : config.rounding;
    if (!ROUNDINGS.includes(rounding)) throw new MoneyError(`unknown rounding ${JSON.stringify(rounding)}`);
    const p = t.pays;
    const pays = {};
    for (const [type, v] of Object.entries(p)) if (typeof v === 'string') pays[type] = fraction(v);
    pays.banker = fraction(BANKER_PAYS[bankerPays]);
    if (own(p, 'banker_no_commission')) {
      pays.banker_no_commission = fraction(p.banker_no_commission.win);
      pays.banker_no_commission_six = fraction(p.banker_no_commission.win_with_six);
    }
    if (own(p, 'lucky6')) {
      pays.lucky6_two = fraction(p.lucky6.two_cards);
      pays.lucky6_three = fraction(p.lucky6.three_cards);
    }
    let dragon = null;
    if (own(p, 'player_dragon')) {
      const name = config.dragon_table == null ? DEFAULT_DRAGON[t.name] : config.dragon_table;
      if (!own(t.dragon_tables, name)) throw new MoneyError(`unknown dragon_table ${JSON.stringify(name)}`);
      const margins = {};
      for (const [m, v] of Object.entries(t.dragon_tables[name])) margins[m] = fraction(v);
      dragon = { natural: fraction(p.player_dragon.natural_win), margins };
    }
    return {
      version,
      profile: t.name,
      offered: new Set([...Object.keys(p)]),
      pays,
      dragon,
      commission: fraction(t.commission_rate),
      rounding,
      banking,
      covers: banking === 'player_banker' ? new Set(PLAYER_BANKER_COVERS[t.name]) : new Set(),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The round's facts and each bet type's grade (game-rules.md; the pay table's words)

  const RANKS = 'A23456789TJQK';
  const point = (code) => {
    const r = RANKS.indexOf(String(code)[0]);
    if (r < 0 || String(code).length !== 2) throw new MoneyError(`not a card: ${JSON.stringify(code)}`);
    return r < 9 ? r + 1 : 0;
  };
  const total = (cards) => cards.reduce((s, c) => s + point(c), 0) % 10;

  /** What every bet is graded on, from the two hands in dealing order. */
  function roundFacts(player, banker) {
    if (!Array.isArray(player) || !Array.isArray(banker) || player.length < 2 || banker.length < 2) {
      throw new MoneyError('a round needs two hands of at least two cards');
    }
    const pt = total(player);
    const bt = total(banker);
    const two = (h) => total(h.slice(0, 2));
    const pair = (h) => h[0][0] === h[1][0];
    return {
      player_total: pt,
      banker_total: bt,
      result: pt > bt ? 'player' : bt > pt ? 'banker' : 'tie',
      player_natural: two(player) >= 8,
      banker_natural: two(banker) >= 8,
      player_pair: pair(player),
      banker_pair: pair(banker),
      perfect_pair: player[0] === player[1] || banker[0] === banker[1],
      cards: player.length + banker.length,
      banker_cards: banker.length,
    };
  }

  const WIN = (mult) => ({ grade: 'win', mult });
  const PUSH = { grade: 'push', mult: [0n, 1n] };
  const LOSE = { grade: 'lose', mult: [0n, 1n] };

  /** A dragon bet on `side`: natural win, natural tie push, a listed margin, else lose. */
  function dragon(side, f, table) {
    const other = side === 'player' ? 'banker' : 'player';
    const natural = f.player_natural || f.banker_natural;
    if (natural && f.result === 'tie') return PUSH;
    if (f.result !== side) return LOSE;
    if (natural) return WIN(table.dragon.natural);
    const margin = f[`${side}_total`] - f[`${other}_total`];
    return own(table.dragon.margins, margin) ? WIN(table.dragon.margins[margin]) : LOSE;
  }

  const GRADERS = {
    banker: (f, t) => (f.result === 'banker' ? WIN(t.pays.banker) : f.result === 'tie' ? PUSH : LOSE),
    player: (f, t) => (f.result === 'player' ? WIN(t.pays.player) : f.result === 'tie' ? PUSH : LOSE),
    tie: (f, t) => (f.result === 'tie' ? WIN(t.pays.tie) : LOSE),
    banker_pair: (f, t) => (f.banker_pair ? WIN(t.pays.banker_pair) : LOSE),
    player_pair: (f, t) => (f.player_pair ? WIN(t.pays.player_pair) : LOSE),
    banker_no_commission: (f, t) => {
      if (f.result === 'tie') return PUSH;
      if (f.result !== 'banker') return LOSE;
      return WIN(f.banker_total === 6 ? t.pays.banker_no_commission_six : t.pays.banker_no_commission);
    },
    big: (f, t) => (f.cards >= 5 ? WIN(t.pays.big) : LOSE),
    small: (f, t) => (f.cards === 4 ? WIN(t.pays.small) : LOSE),
    lucky6: (f, t) => (f.result === 'banker' && f.banker_total === 6
      ? WIN(f.banker_cards === 2 ? t.pays.lucky6_two : t.pays.lucky6_three) : LOSE),
    any_pair: (f, t) => (f.player_pair || f.banker_pair ? WIN(t.pays.any_pair) : LOSE),
    perfect_pair: (f, t) => (f.perfect_pair ? WIN(t.pays.perfect_pair) : LOSE),
    player_dragon: (f, t) => dragon('player', f, t),
    banker_dragon: (f, t) => dragon('banker', f, t),
  };

  /** How a bet of `type` ends on the round: {grade, mult}. */
  function gradeBet(type, facts, table) {
    if (!own(GRADERS, type) || !table.offered.has(type)) {
      throw new MoneyError(`${JSON.stringify(type)} is not a bet of ${table.version}`);
    }
    return GRADERS[type](facts, table);
  }

  // ---------------------------------------------------------------------------------------------
  // Pricing: lines, participants, the house

  /** An amount received, num/den ≥ 0, to a whole minor unit by the table's rule. */
  function receive(rounding, num, den) {
    if (rounding === 'half_up') return (2n * num + den) / (2n * den);
    return num / den; // BigInt division floors a non-negative quotient
  }

  /**
   * One bet priced: a win owes gross_win (a Banker bet paying under even money is owed even
   * money, the difference being the line's commission), a push nothing, a loss the stake.
   */
  function priceLine(type, amount, facts, table) {
    if (!Number.isSafeInteger(amount) || amount <= 0) {
      throw new MoneyError(`a stake is a positive integer of minor units, found ${JSON.stringify(amount)}`);
    }
    const { grade, mult } = gradeBet(type, facts, table);
    const stake = BigInt(amount);
    let gross = 0n;
    let net = 0n;
    let commission = 0n;
    if (grade === 'win') {
      const owed = type === 'banker' && mult[0] < mult[1] ? [1n, 1n] : mult;
      gross = receive(table.rounding, stake * owed[0], owed[1]);
      net = receive(table.rounding, stake * mult[0], mult[1]);
      commission = gross - net;
    } else if (grade === 'lose') {
      net = -stake;
    }
    return { type, stake, grade, multiplier: fractionText(mult), gross_win: gross, commission, net };
  }

  /** A participant's round: the commission rate taken from a positive gross, the rest received. */
  function participant(gross, table) {
    const [n, d] = table.commission;
    const net = gross > 0n && n > 0n ? receive(table.rounding, gross * (d - n), d) : gross;
    return { gross, commission: gross - net, net };
  }

  /** What whoever covers a line gets from it: the losing stake, or minus the gross win. */
  const coverer = (line) => -(line.net + line.commission);
  const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

  /**
   * A round's settlement money from its bets (in accepted order) and player-banker, in the
   * proof's form with bettors named by `idField` (v2 proofs: bettor_ref; v1: bettor_id, the
   * participants' `id`): {result, lines, bettors, player_banker, house, nets}.
   */
  function settle(config, facts, bets, playerBanker, idField = 'bettor_ref') {
    const table = priced(config);
    if (!Array.isArray(bets)) throw new MoneyError('bets must be a list');
    const pbName = playerBanker == null ? null : playerBanker[idField];
    if ((table.banking === 'player_banker') !== (pbName != null) && (bets.length || pbName != null)) {
      throw new MoneyError(`a ${table.banking} table settles ${pbName == null ? 'with' : 'without'} a player-banker`);
    }
    const partId = idField === 'bettor_ref' ? 'bettor_ref' : 'id';
    const lines = bets.map((bet, index) => {
      if (!isObject(bet) || typeof bet[idField] !== 'string') throw new MoneyError(`bet ${index} names no ${idField}`);
      if (bet[idField] === pbName) throw new MoneyError('the player-banker does not bet at its own table');
      const line = priceLine(bet.type, bet.amount, facts, table);
      return { index, who: bet[idField], ...line, covered_by: table.covers.has(bet.type) ? 'player_banker' : 'house' };
    });
    const order = [];
    const sums = new Map();
    for (const x of lines) {
      if (!sums.has(x.who)) (order.push(x.who), sums.set(x.who, { stake: 0n, gross: 0n }));
      const s = sums.get(x.who);
      s.stake += x.stake;
      s.gross += x.net;
    }
    const bettors = order.map((who) => ({ who, role: 'bettor', stake: sums.get(who).stake, ...participant(sums.get(who).gross, table) }));
    let pb = null;
    if (pbName != null) {
      const gross = lines.filter((x) => x.covered_by === 'player_banker').reduce((a, x) => a + coverer(x), 0n);
      pb = { who: pbName, role: 'player_banker', stake: 0n, ...participant(gross, table) };
    }
    const covered = lines.filter((x) => x.covered_by === 'house').reduce((a, x) => a + coverer(x), 0n);
    const commission = [...lines, ...bettors, ...(pb ? [pb] : [])].reduce((a, x) => a + x.commission, 0n);
    const person = (p) => ({
      [partId]: p.who, role: p.role, stake: num(p.stake), gross: num(p.gross), commission: num(p.commission), net: num(p.net),
    });
    const nets = {};
    for (const p of [...bettors, ...(pb ? [pb] : [])]) nets[p.who] = num(p.net);
    return {
      result: facts.result,
      lines: lines.map((x) => ({
        index: x.index, [idField]: x.who, type: x.type, stake: num(x.stake), grade: x.grade, multiplier: x.multiplier,
        gross_win: num(x.gross_win), commission: num(x.commission), net: num(x.net), covered_by: x.covered_by,
      })),
      bettors: bettors.map(person),
      player_banker: pb ? person(pb) : null,
      house: { covered: num(covered), commission: num(commission), take: num(covered + commission) },
      nets,
    };
  }

  /**
   * A spectator's slip settled alone (bacc-pf-v1.1, "A slip's money"): its lines in bet-type
   * order, {lines: [{type, stake, grade, multiplier, gross_win, commission, net}], commission, net}.
   */
  function slip(config, facts, leafLines) {
    if (!Array.isArray(leafLines) || !leafLines.length) throw new MoneyError('a slip has at least one line');
    const bets = leafLines.map((l) => ({ bettor_ref: 'slip', type: isObject(l) ? l.type : l, amount: isObject(l) ? l.amount : l }));
    const s = settle({ ...config, banking: 'house' }, facts, bets, null);
    const lines = s.lines.map(({ index, bettor_ref: _r, covered_by: _c, ...rest }) => rest);
    return { lines, commission: s.bettors[0].commission, net: s.bettors[0].net };
  }

  /**
   * A book's money from its slips' money as settled (each {lines, commission, net}; in a voided
   * round, the money the void replaced): book.totals — {bettors, stake, net, by_type, house}.
   */
  function bookTotals(slips) {
    let stake = 0n;
    let net = 0n;
    let covered = 0n;
    let commission = 0n;
    const byType = {};
    for (const s of slips) {
      net += BigInt(s.net);
      commission += BigInt(s.commission);
      for (const l of s.lines) {
        const t = (byType[l.type] = byType[l.type] || { stake: 0n, gross_win: 0n, commission: 0n, net: 0n });
        for (const k of ['stake', 'gross_win', 'commission', 'net']) t[k] += BigInt(l[k]);
        stake += BigInt(l.stake);
        commission += BigInt(l.commission);
        covered -= BigInt(l.net) + BigInt(l.commission);
      }
    }
    const by = {};
    for (const k of Object.keys(byType).sort()) {
      by[k] = Object.fromEntries(Object.entries(byType[k]).map(([f, v]) => [f, num(v)]));
    }
    return {
      bettors: slips.length, stake: num(stake), net: num(net), by_type: by,
      house: { covered: num(covered), commission: num(commission), take: num(covered + commission) },
    };
  }

  /**
   * The first place `found` departs from `expected`: {field, expected, found} or null. Members
   * `found` has beyond `expected` are ignored, except in a `nets` map, where every participant
   * counts; a list's count must match.
   */
  function firstDifference(path, expected, found) {
    const hit = difference(expected, found, false);
    if (!hit) return null;
    return { field: path + hit.steps.reverse().join(''), expected: hit.expected, found: hit.found };
  }

  /** firstDifference's walk: the steps to the first difference are collected on the way out. */
  function difference(expected, found, isNets) {
    if (isObject(expected) && isObject(found)) {
      if (isNets) {
        const a = Object.keys(expected).sort();
        const b = Object.keys(found).sort();
        if (a.join() !== b.join()) return { steps: [' (participants)'], expected: a, found: b };
      }
      for (const k in expected) {
        const hit = own(found, k)
          ? difference(expected[k], found[k], k === 'nets')
          : { steps: [], expected: expected[k], found: undefined };
        if (hit) return (hit.steps.push(`.${k}`), hit);
      }
      return null;
    }
    if (Array.isArray(expected) && Array.isArray(found)) {
      const n = Math.min(expected.length, found.length);
      for (let i = 0; i < n; i++) {
        const hit = difference(expected[i], found[i], false);
        if (hit) return (hit.steps.push(`[${i}]`), hit);
      }
      return expected.length === found.length ? null : { steps: [' (count)'], expected: expected.length, found: found.length };
    }
    return expected === found ? null : { steps: [], expected, found };
  }

  const api = Object.freeze({
    PAY_TABLES, MoneyError, versionOf, priced, roundFacts, gradeBet, settle, slip, bookTotals, firstDifference,
  });
  root.BaccMoney = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

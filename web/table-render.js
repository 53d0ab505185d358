/*
 * The table page's drawing: pure functions of the table (tested under node) and the DOM nodes
 * they become. Every value from the API or another person is written with textContent or an
 * attribute, never parsed as markup. A classic <script> (globalThis.BaccTableRender) or a
 * CommonJS module.
 */
(function (root) {
  'use strict';

  const I18n = root.BaccI18n || (typeof require === 'function' ? require('./i18n.js') : null);

  /** The bet areas of each profile, in the order the seeds draw them. */
  const AREAS = {
    'star-city': ['tie', 'banker_pair', 'player_pair', 'banker', 'player'],
    'bid-squeeze': [
      'banker_no_commission', 'banker', 'player', 'tie', 'banker_pair', 'player_pair', 'big',
      'small', 'lucky6', 'any_pair', 'perfect_pair', 'player_dragon', 'banker_dragon',
    ],
  };
  /** Bid-squeeze (seed 001): 大/小 may not be bet after round 20. */
  const BIG_SMALL_LAST_ROUND = 20;
  const COLOUR = { banker: 'red', player: 'blue', tie: 'green' };
  const SUIT = { S: '♠', H: '♥', D: '♦', C: '♣' };
  /** drand quicknet's chain hash (pinned in baccarat/beacon.py and web/drand.js; a test checks). */
  const QUICKNET_CHAIN_HASH = '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971';

  // ---------------------------------------------------------------------------------------------
  // Pure

  /** An amount in minor units as the table writes it (no floats in the arithmetic). */
  function money(amount, exponent = 0) {
    if (amount === null || amount === undefined) return '—';
    const sign = amount < 0 ? '-' : '';
    const digits = String(Math.abs(amount)).padStart(exponent + 1, '0');
    const whole = digits.slice(0, digits.length - exponent).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return sign + whole + (exponent ? '.' + digits.slice(digits.length - exponent) : '');
  }

  /** A chip's face: short for big values (2,500 → 2.5K, 100,000 → 100K); its value stays exact
   * in the button's data-amount. */
  function chipLabel(amount, exponent = 0) {
    if (exponent || amount < 1000 || amount % 100 !== 0) return money(amount, exponent);
    const thousands = Math.floor(amount / 1000);
    const tenths = (amount % 1000) / 100;
    return `${thousands}${tenths ? '.' + tenths : ''}K`;
  }

  /** Where someone is, in the page's words ("seat 3" → 座位 3). */
  function placeLabel(lang, place) {
    if (!place) return '';
    const seat = /^seat (\d)$/.exec(place);
    if (seat) return I18n.t(lang, 'seat', { n: seat[1] });
    return I18n.t(lang, `place.${place}`);
  }

  /** 歷史開牌: each of the last 30 results as a circle — red banker, blue player, green tie —
   * with the winner's points (both on a tie), and pair dots red (莊一對) / blue (閒一對). */
  function historyBeads(history) {
    return (history || []).slice(-30).map((h) => ({
      round: h.round,
      result: h.result,
      colour: COLOUR[h.result] || 'grey',
      text: h.result === 'tie'
        ? `${h.player_total}·${h.banker_total}`
        : String(h.result === 'banker' ? h.banker_total : h.player_total),
      dots: [...(h.banker_pair ? ['red'] : []), ...(h.player_pair ? ['blue'] : [])],
    }));
  }

  /** The shoe's rounds as web/roads.js reads them (the whole shoe's bead plate, else history). */
  function roadRounds(shoe) {
    if (!shoe) return [];
    const cells = shoe.roads && shoe.roads.bead_plate && shoe.roads.bead_plate.cells;
    return (cells || shoe.history || []).map((c) => ({
      round_number: c.round,
      result: c.result,
      player_pair: Boolean(c.player_pair),
      banker_pair: Boolean(c.banker_pair),
      player_total: c.player_total,
      banker_total: c.banker_total,
    }));
  }

  /** Whole seconds left to `deadline` (ISO) on the server's clock: `offsetMs` = server − local. */
  function secondsLeft(deadline, offsetMs, nowMs) {
    if (!deadline) return null;
    return Math.max(0, Math.ceil((Date.parse(deadline) - (nowMs + offsetMs)) / 1000));
  }

  /** The areas of the table with their limits and whether they take a bet now. */
  function areasFor(profile, limits, roundNumber) {
    const areas = (limits && limits.areas) || {};
    return (AREAS[profile] || []).filter((id) => id in areas || !limits).map((id) => ({
      id,
      min: areas[id] ? areas[id].min : null,
      max: areas[id] ? areas[id].max : null,
      disabled: profile === 'bid-squeeze' && (id === 'big' || id === 'small') &&
        roundNumber > BIG_SMALL_LAST_ROUND,
    }));
  }

  /** The balance to show: the latest reported one (`base`, which includes every net up to the
   * report at `baseSeq`) plus the own nets of rounds settled after it, up to the snapshot drawn
   * (`upTo`: its seq) — a net is never shown before the cards of its round are drawn. */
  function displayBalance(base, baseSeq, nets, upTo) {
    if (base === null || base === undefined) return null;
    return nets.filter((n) => n.seq > baseSeq && n.seq <= upTo)
      .reduce((sum, n) => sum + n.net, base);
  }

  /** The squeeze now: the counting step, its deadline, who squeezes which hand, and whether
   * `me` holds a face-down card of it (then the page offers the open button). */
  function squeezeView(round, me) {
    const steps = round && round.squeeze && round.squeeze.steps;
    if (!steps) return null;
    const name = ['initial', 'draws'].find((s) => steps[s] && steps[s].status === 'squeezing');
    if (!name) return null;
    const step = steps[name];
    const hands = step.hands || {};
    const squeezers = {};
    let mine = false;
    for (const hand of ['player', 'banker']) {
      const h = hands[hand];
      if (!h) continue;
      squeezers[hand] = h.squeezer || null;
      if (h.squeezer === me && !h.opened) mine = true;
    }
    return { step: name, revealBy: step.reveal_by, squeezers, mine };
  }

  /** What a bacc-pf-v2 table shows of its beacon: while a round is locked, the beacon round its
   * cards wait for — drand's, or the local test beacon's (any chain but quicknet's, which only
   * drand's key signs) — and, after a round voided `beacon_unavailable` (the reducer's
   * `beacon_void`), that its beacon never came and its stakes were returned. '' otherwise. */
  function beaconInfo(s, lang) {
    if (s.locked && s.locked.beacon) {
      const drand = s.locked.beacon.chain_hash === QUICKNET_CHAIN_HASH;
      return I18n.t(lang, drand ? 'beacon.drand' : 'beacon.test', { round: s.locked.beacon.round });
    }
    return s.beacon_void ? I18n.t(lang, 'beacon.void', { round: s.beacon_void.round_number }) : '';
  }

  /** A card code ('QH', 'TS') as drawn: rank, suit symbol, red or black; null: face down. */
  function cardFace(code) {
    if (!code) return null;
    const rank = code[0] === 'T' ? '10' : code[0];
    return { rank, suit: SUIT[code[1]] || code[1], red: code[1] === 'H' || code[1] === 'D' };
  }

  /** A draft {area: amount} as the bets of a slip, in the areas' order. */
  function draftBets(draft, profile) {
    return (AREAS[profile] || Object.keys(draft))
      .filter((id) => draft[id] > 0)
      .map((id) => ({ type: id, amount: draft[id] }));
  }

  // ---------------------------------------------------------------------------------------------
  // DOM

  function el(doc, tag, cls, text, attrs) {
    const node = doc.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }

  function beadNode(doc, bead) {
    const b = el(doc, 'span', `bead ${bead.colour}`, bead.text, {
      'data-round': bead.round, 'data-result': bead.result, title: bead.result,
    });
    for (const dot of bead.dots) b.appendChild(el(doc, 'span', `dot ${dot}`));
    return b;
  }

  function cardNode(doc, card, lang) {
    const face = cardFace(card.code);
    const node = el(doc, 'div', face ? `card up${face.red ? ' red' : ''}` : 'card down', null, {
      'data-hand': card.hand, 'data-index': card.index,
    });
    if (face) {
      node.appendChild(el(doc, 'span', 'rank', face.rank));
      node.appendChild(el(doc, 'span', 'suit', face.suit));
    } else if (card.squeezer) {
      node.title = I18n.t(lang, 'squeeze.by', { name: card.squeezer });
    }
    return node;
  }

  /** A slip's lines as small chips: "莊 1,000". */
  function slipNode(doc, slip, lang, profile, exponent) {
    const box = el(doc, 'div', 'slip');
    if (!slip) return box;
    for (const bet of slip.bets || []) {
      const line = el(doc, 'span', `line area-${bet.type}`, null, { 'data-area': bet.type });
      line.appendChild(el(doc, 'span', 'what', I18n.t(lang, `area.${bet.type}`, {}, profile)));
      line.appendChild(el(doc, 'span', 'amount', money(bet.amount, exponent)));
      box.appendChild(line);
    }
    return box;
  }

  const api = Object.freeze({
    AREAS, BIG_SMALL_LAST_ROUND, money, chipLabel, placeLabel, historyBeads, roadRounds, secondsLeft, areasFor,
    displayBalance, squeezeView, beaconInfo, QUICKNET_CHAIN_HASH, cardFace, draftBets, el, beadNode, cardNode, slipNode,
  });
  root.BaccTableRender = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

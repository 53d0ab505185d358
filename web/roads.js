/*
 * Baccarat roads for the browser verifier: the bead plate and the big road.
 *
 * Written for web/verify.html from the usual scoreboard conventions; it shares no code with the
 * service. One file, no imports; a classic <script> (globalThis.BaccRoads) or a CommonJS module.
 *
 * A round, as the roads read it: {round_number, result: 'banker'|'player'|'tie',
 * player_pair?, banker_pair?, player_total?, banker_total?, flagged?} ('flagged' marks a round the
 * verifier found wrong). Pairs default to "the hand's first two cards share a rank" when the round
 * carries `player`/`banker` card codes instead of the booleans.
 *
 * Layout functions are pure (tested under Node); the render functions build SVG with DOM calls
 * only (no HTML strings), so nothing from a proof is ever parsed as markup.
 */
(function (root) {
  'use strict';

  const ROWS = 6;
  const RESULTS = ['banker', 'player', 'tie'];
  const LETTER = { banker: 'B', player: 'P', tie: 'T' };
  const WORD = { banker: 'Banker', player: 'Player', tie: 'Tie' };

  /** True when the first two card codes have the same rank (suit ignored). */
  function isPair(cards) {
    return (
      Array.isArray(cards) &&
      cards.length >= 2 &&
      typeof cards[0] === 'string' &&
      typeof cards[1] === 'string' &&
      cards[0].length > 0 &&
      cards[0][0] === cards[1][0]
    );
  }

  function handCards(h) {
    if (Array.isArray(h)) return h;
    if (h && typeof h === 'object' && Array.isArray(h.cards)) return h.cards;
    return undefined;
  }

  /** A round reduced to what the roads draw. Unknown results become null (drawn grey). */
  function roadRound(r, index) {
    const result = r && RESULTS.includes(r.result) ? r.result : null;
    const pp = typeof r.player_pair === 'boolean' ? r.player_pair : isPair(handCards(r.player));
    const bp = typeof r.banker_pair === 'boolean' ? r.banker_pair : isPair(handCards(r.banker));
    return {
      round_number: Number.isInteger(r.round_number) ? r.round_number : index + 1,
      result,
      player_pair: pp,
      banker_pair: bp,
      player_total: r.player_total,
      banker_total: r.banker_total,
      flagged: Boolean(r.flagged),
    };
  }

  /**
   * Bead plate: every round (ties included) in order, `rows` rows, filled column by column
   * (top to bottom, then the next column to the right).
   * Returns {rows, columns, cells: [{col, row, ...round}]}.
   */
  function beadPlate(rounds, rows = ROWS) {
    const cells = rounds.map((r, i) => ({
      col: Math.floor(i / rows),
      row: i % rows,
      ...roadRound(r, i),
    }));
    return { rows, columns: Math.ceil(cells.length / rows), cells };
  }

  /**
   * Big road: one cell per Banker or Player win. A streak of the same side runs down a column;
   * it turns right (the "dragon tail") when it reaches the last row or when the cell below is
   * taken, and then keeps going right. A new streak starts at the top of the column after the
   * one where the previous streak started (or the next free one). A tie takes no cell: it is
   * counted on the last cell (drawn as a green slash with the count); ties before the first win
   * are counted on the first cell. Rounds with an unknown result are left out.
   * Returns {rows, columns, cells: [{col, row, result, ties, tie_rounds, round_number,
   * player_pair, banker_pair, flagged}]}.
   */
  function bigRoad(rounds, rows = ROWS) {
    const cells = [];
    const taken = new Set();
    const key = (c, r) => `${c},${r}`;
    const isTaken = (c, r) => taken.has(key(c, r));
    let last = null; // the last cell placed
    let streakCol = -1; // column where the current streak started
    let turned = false; // the current streak has turned right
    let pendingTies = []; // ties before the first win

    rounds.forEach((raw, i) => {
      const r = roadRound(raw, i);
      if (r.result === 'tie') {
        if (last) {
          last.ties += 1;
          last.tie_rounds.push(r.round_number);
          last.flagged = last.flagged || r.flagged;
        } else {
          pendingTies.push(r);
        }
        return;
      }
      if (r.result === null) return;

      let col;
      let row;
      if (last && r.result === last.result) {
        if (!turned && last.row + 1 < rows && !isTaken(last.col, last.row + 1)) {
          col = last.col;
          row = last.row + 1;
        } else {
          turned = true;
          col = last.col + 1;
          row = last.row;
          while (isTaken(col, row)) col += 1; // defensive: never overwrite a cell
        }
      } else {
        col = streakCol + 1;
        while (isTaken(col, 0)) col += 1;
        row = 0;
        streakCol = col;
        turned = false;
      }
      const cell = {
        col,
        row,
        result: r.result,
        round_number: r.round_number,
        player_pair: r.player_pair,
        banker_pair: r.banker_pair,
        player_total: r.player_total,
        banker_total: r.banker_total,
        flagged: r.flagged,
        ties: 0,
        tie_rounds: [],
      };
      if (pendingTies.length) {
        cell.ties = pendingTies.length;
        cell.tie_rounds = pendingTies.map((t) => t.round_number);
        cell.flagged = cell.flagged || pendingTies.some((t) => t.flagged);
        pendingTies = [];
      }
      cells.push(cell);
      taken.add(key(col, row));
      last = cell;
    });

    if (pendingTies.length) {
      // Only ties so far: one tie cell holds them all.
      cells.push({
        col: 0,
        row: 0,
        result: 'tie',
        round_number: pendingTies[0].round_number,
        player_pair: false,
        banker_pair: false,
        flagged: pendingTies.some((t) => t.flagged),
        ties: pendingTies.length,
        tie_rounds: pendingTies.map((t) => t.round_number),
      });
    }
    const columns = cells.reduce((m, c) => Math.max(m, c.col + 1), 0);
    return { rows, columns, cells };
  }

  /** Plain-words description of a cell, for <title> and screen readers. */
  function describeCell(cell, kind) {
    const parts = [];
    if (kind === 'bead' || cell.result !== 'tie') {
      let s = `Round ${cell.round_number}: ${cell.result ? WORD[cell.result] : 'unknown result'}`;
      if (cell.result === 'tie' && Number.isInteger(cell.player_total)) {
        s += ` ${cell.player_total}–${cell.banker_total}`;
      } else if (cell.result && Number.isInteger(cell.player_total)) {
        const win = cell.result === 'banker' ? cell.banker_total : cell.player_total;
        const lose = cell.result === 'banker' ? cell.player_total : cell.banker_total;
        s += ` wins ${win}–${lose}`;
      }
      parts.push(s);
    }
    if (cell.banker_pair) parts.push('banker pair');
    if (cell.player_pair) parts.push('player pair');
    if (kind === 'big' && cell.ties) {
      parts.push(
        `${cell.ties} tie${cell.ties > 1 ? 's' : ''} (round${cell.ties > 1 ? 's' : ''} ` +
          `${cell.tie_rounds.join(', ')})`,
      );
    }
    if (cell.flagged) parts.push('does not match the re-derived shoe');
    return parts.join(', ');
  }

  // ---------------------------------------------------------------------------------------------
  // Rendering (browser only)

  const SVG_NS = 'http://www.w3.org/2000/svg';
  const CELL = 26; // px per grid cell

  function el(doc, name, attrs, parent) {
    const node = doc.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (parent) parent.appendChild(node);
    return node;
  }

  function grid(doc, columns, rows, label) {
    const w = columns * CELL + 1;
    const h = rows * CELL + 1;
    const svg = el(doc, 'svg', {
      width: w,
      height: h,
      viewBox: `0 0 ${w} ${h}`,
      role: 'img',
      'aria-label': label,
      class: 'road-svg',
    });
    const title = el(doc, 'title', {}, svg);
    title.textContent = label;
    const lines = el(doc, 'g', { class: 'road-grid' }, svg);
    for (let c = 0; c <= columns; c++) {
      el(doc, 'line', { x1: c * CELL + 0.5, y1: 0, x2: c * CELL + 0.5, y2: h }, lines);
    }
    for (let r = 0; r <= rows; r++) {
      el(doc, 'line', { x1: 0, y1: r * CELL + 0.5, x2: w, y2: r * CELL + 0.5 }, lines);
    }
    return svg;
  }

  function pairDots(doc, g, cell, cx, cy, rad) {
    const d = rad * 0.72;
    if (cell.banker_pair) {
      el(doc, 'circle', { cx: cx - d, cy: cy - d, r: 3.2, class: 'dot dot-banker' }, g);
    }
    if (cell.player_pair) {
      el(doc, 'circle', { cx: cx + d, cy: cy + d, r: 3.2, class: 'dot dot-player' }, g);
    }
  }

  /** Draws the bead plate as an SVG element; `minColumns` pads the grid. */
  function renderBeadPlate(doc, rounds, { rows = ROWS, minColumns = 12 } = {}) {
    const plate = beadPlate(rounds, rows);
    const columns = Math.max(plate.columns, minColumns);
    const svg = grid(doc, columns, rows, `Bead plate of ${plate.cells.length} rounds`);
    svg.setAttribute('data-road', 'bead-plate');
    for (const cell of plate.cells) {
      const cx = cell.col * CELL + CELL / 2 + 0.5;
      const cy = cell.row * CELL + CELL / 2 + 0.5;
      const rad = CELL / 2 - 2.5;
      const g = el(doc, 'g', {
        class: `bead bead-${cell.result || 'unknown'}${cell.flagged ? ' flagged' : ''}`,
        'data-round': cell.round_number,
        'data-col': cell.col,
        'data-row': cell.row,
      }, svg);
      el(doc, 'title', {}, g).textContent = describeCell(cell, 'bead');
      if (cell.flagged) el(doc, 'circle', { cx, cy, r: rad + 1.5, class: 'flag-ring' }, g);
      el(doc, 'circle', { cx, cy, r: rad, class: 'bead-disc' }, g);
      const t = el(doc, 'text', { x: cx, y: cy, class: 'bead-letter' }, g);
      t.textContent = cell.result ? LETTER[cell.result] : '?';
      pairDots(doc, g, cell, cx, cy, rad);
    }
    return svg;
  }

  /** Draws the big road as an SVG element; `minColumns` pads the grid. */
  function renderBigRoad(doc, rounds, { rows = ROWS, minColumns = 24 } = {}) {
    const road = bigRoad(rounds, rows);
    const columns = Math.max(road.columns, minColumns);
    const svg = grid(doc, columns, rows, `Big road: ${road.cells.length} cells`);
    svg.setAttribute('data-road', 'big-road');
    for (const cell of road.cells) {
      const cx = cell.col * CELL + CELL / 2 + 0.5;
      const cy = cell.row * CELL + CELL / 2 + 0.5;
      const rad = CELL / 2 - 4;
      const g = el(doc, 'g', {
        class: `ring ring-${cell.result}${cell.flagged ? ' flagged' : ''}`,
        'data-round': cell.round_number,
        'data-col': cell.col,
        'data-row': cell.row,
        'data-ties': cell.ties,
      }, svg);
      el(doc, 'title', {}, g).textContent = describeCell(cell, 'big');
      if (cell.flagged) el(doc, 'circle', { cx, cy, r: rad + 3, class: 'flag-ring' }, g);
      el(doc, 'circle', { cx, cy, r: rad, class: 'ring-circle' }, g);
      if (cell.ties) {
        const s = rad + 1;
        el(doc, 'line', { x1: cx - s, y1: cy + s, x2: cx + s, y2: cy - s, class: 'tie-slash' }, g);
        if (cell.ties > 1) {
          const t = el(doc, 'text', { x: cx, y: cy, class: 'tie-count' }, g);
          t.textContent = String(cell.ties);
        }
      }
      pairDots(doc, g, cell, cx, cy, rad + 2);
    }
    return svg;
  }

  const api = Object.freeze({
    ROWS,
    isPair,
    roadRound,
    beadPlate,
    bigRoad,
    describeCell,
    renderBeadPlate,
    renderBigRoad,
  });

  root.BaccRoads = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

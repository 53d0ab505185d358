/*
 * The table page's model, moved by the push channel alone: a snapshot (`GET …/state`) and then
 * each table event, applied in `seq` order by `apply(state, event) → state` (pure: the state
 * given is never changed). The events carry what the table shows (docs/api.md "Table events"):
 * a slip's lines (`bet_placed`), the round as the state shows it right after a deal or a reveal
 * and the shoe's counts that moved with it (`round_dealt`, `squeeze_revealed`), a new shoe's
 * cards remaining (`shoe_committed`), a bacc-pf-v2 round's lock and its beacon round
 * (`round_locked`; then `round_dealt`, or `round_voided` `beacon_unavailable`) — so the page never
 * re-reads the state per event.
 *
 * `drawn(state)` is what the page draws of a state (tested under Node: a snapshot with the
 * events after it applied draws what the state read after them draws, web/test/table-state.test.js).
 * One file, no imports; a classic <script> (globalThis.BaccTableState) or a CommonJS module.
 */
(function (root) {
  'use strict';

  const HISTORY = 30; // the last results the state's history holds (baccarat/roads.py)
  const CHAT_MAX = 200; // chat lines (and removals) kept, the oldest dropped first (push's CHAT_SEEN_MAX)
  const SETTLED = { round_settled: 'settled', round_auto_settled: 'auto_settled', round_voided: 'voided' };

  const copy = (o) => (o === null || o === undefined ? o : { ...o });

  /** The phase and its deadline, as the state derives them from its window and round. */
  function phaseOf(s) {
    if (s.locked) return ['locked', s.locked.beacon.expected_at]; // bacc-pf-v2: bets locked, cards not yet
    const b = s.book && s.book.betting;
    if (b && b.status === 'open') return ['betting', b.closes_at];
    if (b && (b.status === 'closed' || b.status === 'locked')) return ['closed', s.deadline || null];
    const r = s.round;
    if (!r) return ['idle', null];
    if (r.squeeze && r.status !== 'voided') {
      const steps = r.squeeze.steps || {};
      for (const step of ['initial', 'draws']) {
        if (steps[step] && steps[step].status === 'squeezing') return ['squeeze', steps[step].reveal_by];
      }
    }
    if (r.status === 'dealt') return ['dealt', r.settle_by];
    return ['settled', null];
  }

  function withPhase(s) {
    const [phase, deadline] = phaseOf(s);
    return { ...s, phase, deadline };
  }

  function me(s) {
    return s.you ? s.you.bettor_id : null;
  }

  function place(s, where) {
    return s.you ? { ...s, you: { ...s.you, place: where } } : s;
  }

  function seatOf(s, bettor) {
    for (const [n, who] of Object.entries(s.seats || {})) if (who && who.bettor_id === bettor) return n;
    return null;
  }

  function person(id) {
    return { bettor_id: id, balance: null, level: null };
  }

  /** The shoe moved by an event's `shoe` (a round's history cell appended once its result shows). */
  function moveShoe(shoe, moved) {
    if (!moved) return shoe;
    if (!shoe || shoe.shoe_id !== moved.shoe_id) return shoe;
    const out = { ...shoe, rounds_dealt: moved.rounds_dealt, cards_remaining: moved.cards_remaining };
    const last = moved.last;
    const roads = shoe.roads || { bead_plate: { rows: 6, cells: [] } };
    const cells = (roads.bead_plate && roads.bead_plate.cells) || [];
    if (last && !cells.some((c) => c.round === last.round)) {
      const entry = { ...last };
      delete entry.col;
      delete entry.row;
      out.roads = { ...roads, bead_plate: { ...roads.bead_plate, cells: [...cells, last] } };
      out.history = [...(shoe.history || []), entry].slice(-HISTORY);
    }
    out.last_round_id = `${moved.shoe_id}_r${moved.rounds_dealt}`;
    return out;
  }

  function slips(book, key, slip) {
    const out = { ...book, seats: { ...book.seats }, spectators: { ...book.spectators } };
    for (const where of ['seats', 'spectators']) {
      for (const [k, v] of Object.entries(out[where])) if (v.bettor_id === key) delete out[where][k];
    }
    if (slip) {
      if (slip.seat !== null) out.seats[slip.seat] = slip;
      else out.spectators[key] = slip;
    }
    out.total = [...Object.values(out.seats), ...Object.values(out.spectators)]
      .reduce((sum, v) => sum + v.total, 0);
    return out;
  }

  const HANDLERS = {
    seat_taken(s, d) {
      const out = { ...s, seats: { ...s.seats, [d.seat]: person(d.bettor_id) } };
      return d.bettor_id === me(s) ? place(out, `seat ${d.seat}`) : out;
    },
    seat_vacated(s, d) {
      const seats = { ...s.seats };
      delete seats[d.seat];
      const out = { ...s, seats };
      return d.bettor_id === me(s) ? place(out, null) : out;
    },
    banker_taken(s, d) {
      const out = { ...s, banker: person(d.bettor_id) };
      return d.bettor_id === me(s) ? place(out, 'banker') : out;
    },
    banker_left(s, d) {
      const out = { ...s, banker: null };
      return d.bettor_id === me(s) ? place(out, null) : out;
    },
    spectator_joined(s, d) {
      const out = { ...s, spectators: { ...s.spectators, [d.bettor_id]: person(d.bettor_id) } };
      return d.bettor_id === me(s) ? place(out, 'spectator') : out;
    },
    spectator_left(s, d) {
      const spectators = { ...s.spectators };
      delete spectators[d.bettor_id];
      const out = { ...s, spectators };
      return d.bettor_id === me(s) ? place(out, null) : out;
    },
    spectators_removed(s, d) {
      const spectators = { ...s.spectators };
      for (const id of d.first || []) delete spectators[id];
      return { ...s, spectators };
    },
    watcher_joined(s, d) {
      const watchers = (s.watchers || []).includes(d.bettor_id) ? s.watchers : [...(s.watchers || []), d.bettor_id];
      const out = { ...s, watchers };
      return d.bettor_id === me(s) && !(s.you && s.you.place) ? place(out, 'watcher') : out;
    },
    watcher_left(s, d) {
      const out = { ...s, watchers: (s.watchers || []).filter((w) => w !== d.bettor_id) };
      return d.bettor_id === me(s) && s.you && s.you.place === 'watcher' ? place(out, null) : out;
    },
    betting_opened(s, d) {
      const betting = { shoe_id: d.shoe_id, round_number: d.round_number, closes_at: d.closes_at, status: 'open' };
      return { ...s, book: { table_id: s.table_id, betting, seats: {}, spectators: {}, total: 0 }, beacon_void: null };
    },
    bet_placed(s, d) {
      if (!s.book || !s.book.betting) return s;
      const seat = seatOf(s, d.bettor_id);
      const slip = { // its `order`: this event's seq (docs/api.md: a slip's latest confirmation)
        bettor_id: d.bettor_id, seat: seat === null ? null : Number(seat),
        bets: (d.lines || []).map((l) => ({ type: l.type, amount: l.amount })), total: d.total, order: s.seq,
      };
      return { ...s, book: slips(s.book, d.bettor_id, slip) };
    },
    bet_cancelled(s, d) {
      const out = d.bettor_id === me(s) && s.cancelled ? { ...s, cancelled: null } : s; // its event came
      return out.book && out.book.betting ? { ...out, book: slips(out.book, d.bettor_id, null) } : out;
    },
    betting_closed(s) {
      return windowStatus(s, 'closed');
    },
    betting_cancelled(s) {
      return windowStatus(s, 'cancelled');
    },
    round_locked(s, d) {
      // bacc-pf-v2: the bets locked, no card until the beacon round (the round shown: the last)
      const locked = { round_id: d.round_id, shoe_id: d.shoe_id, round_number: d.round_number,
        locked_at: d.locked_at, book_root: d.book_root, beacon: d.beacon };
      let out = { ...s, locked, beacon_void: null };
      const b = out.book && out.book.betting;
      if (b && b.round_number === d.round_number && b.shoe_id === d.shoe_id) {
        out = { ...out, book: { ...out.book, betting: { ...b, status: 'dealt', round_id: d.round_id } } };
      }
      return out;
    },
    round_dealt(s, d) {
      let out = showRound({ ...s, locked: null }, d);
      const b = out.book && out.book.betting;
      if (b && b.round_number === d.round_number && b.shoe_id === d.shoe_id) {
        out = { ...out, book: { ...out.book, betting: { ...b, status: 'dealt', round_id: d.round_id } } };
      }
      return out;
    },
    squeeze_revealed(s, d) {
      // a step of an earlier round, reported by the next deal: its shoe moves, the round shown
      // stays the latest
      if (s.round && s.round.round_id !== d.round_id) return { ...s, shoe: moveShoe(s.shoe, d.shoe) };
      return showRound(s, d);
    },
    shoe_committed(s, d) {
      const shoe = {
        shoe_id: d.shoe_id, shoe_number: d.shoe_number, status: 'open', rounds_dealt: 0,
        cards_remaining: d.cards_remaining, history: [], roads: { bead_plate: { rows: 6, cells: [] } },
        last_round_id: null,
      };
      return { ...s, shoe, round: null };
    },
    shoe_ended(s, d) {
      return s.shoe && s.shoe.shoe_id === d.shoe_id ? { ...s, shoe: { ...s.shoe, status: 'ended' } } : s;
    },
    table_paused(s) {
      return s.clock ? { ...s, clock: { ...s.clock, paused: true } } : s;
    },
    table_resumed(s) {
      return s.clock ? { ...s, clock: { ...s.clock, paused: false } } : s;
    },
  };

  /** A locked round voided `beacon_unavailable` (no beacon in time): no longer locked; the
   * round shown stays the last one with cards (as the state's), the shoe counts the round (its
   * cards unchanged), and `beacon_void` tells the page
   * (until the next window or lock: the state does not keep it) — stakes returned, no card. */
  function beaconVoided(s, d) {
    const l = s.locked;
    if (!l || l.round_id !== d.round_id) return s;
    const shoe = s.shoe && s.shoe.shoe_id === l.shoe_id ? { ...s.shoe, rounds_dealt: l.round_number } : s.shoe;
    return { ...s, shoe, locked: null, beacon_void: { round_number: l.round_number, beacon_round: d.beacon_round } };
  }

  function windowStatus(s, status) {
    const b = s.book && s.book.betting;
    return b ? { ...s, book: { ...s.book, betting: { ...b, status } } } : s;
  }

  function showRound(s, d) {
    if (!d.round) return s;
    return { ...s, round: d.round, shoe: moveShoe(s.shoe, d.shoe) };
  }

  /** The state after `event` (an event at or before the state's `seq` changes nothing). */
  function apply(state, event) {
    if (!state || event.seq <= state.seq) return state;
    let out = { ...state, seq: event.seq };
    const d = event.data || {};
    const handler = HANDLERS[event.type];
    if (handler) out = handler(out, d);
    if (event.type === 'round_voided' && d.reason === 'beacon_unavailable') out = beaconVoided(out, d);
    if (SETTLED[event.type] && out.round && out.round.round_id === d.round_id) {
      out = { ...out, round: { ...out.round, status: SETTLED[event.type] } };
    }
    return withPhase(out);
  }

  /** The person's own slip in `book` of the state's window (null: none; undefined: another window). */
  function ownSlip(s, book) {
    const mine = s && s.book && s.book.betting;
    if (!book || !book.betting || !mine || me(s) === null) return undefined;
    const id = me(s);
    if (book.betting.round_number !== mine.round_number || book.betting.shoe_id !== mine.shoe_id) return undefined;
    return Object.values(book.seats || {}).find((v) => v.bettor_id === id) || (book.spectators || {})[id] || null;
  }

  /** The state after the person's own confirm or cancel was answered with `book` (the window's
   * book as the service held it then; `sent`: the state shown when the call was made). ONLY the
   * person's own slip is taken from it — another person's slip the events brought since (or will
   * bring) is never undone by an answer read before it — and only when the answer is the newer:
   * a confirmed slip whose `order` (its bet_placed's seq) the state has not reached yet; a cancel
   * when the slip shown is no newer than the one shown at the call (not one a later confirm, say
   * from another tab, placed since). Otherwise the events already say more (a cancel that
   * followed, a newer slip): the answer changes nothing. A book of another window neither.
   * An answered cancel leaves its marker, `cancelled` (the window and the removed slip's `order`),
   * until its event: a snapshot read before the cancel does not bring the slip back. */
  function answered(s, book, sent) {
    const own = ownSlip(s, book);
    if (own === undefined) return s;
    if (own !== null && typeof own.order === 'number' && own.order <= s.seq) return s;
    if (own === null) {
      const shown = ownSlip(s, s.book);
      const before = sent ? ownSlip(sent, sent.book) : undefined;
      if (!shown) return s;
      if (before !== undefined && shown.order > (before ? before.order : -1)) return s;
      const b = s.book.betting;
      const cancelled = { shoe_id: b.shoe_id, round_number: b.round_number, order: shown.order };
      return { ...s, book: slips(s.book, me(s), null), cancelled };
    }
    return { ...s, book: slips(s.book, me(s), own) };
  }

  /** A snapshot taken over `prev` (the state shown): as the service read it, except the
   * person's own slip an answer showed ahead of it — a confirmed one (its `order` past the
   * snapshot's seq: the snapshot was read before that confirm; its event follows), or one a
   * cancel removed (the snapshot still holds it, no newer: read before the cancel) — in that
   * same window only. */
  function snapshot(prev, next) {
    const own = ownSlip(prev, prev && prev.book);
    if (own && own.order > next.seq && ownSlip(next, prev.book) !== undefined) {
      return { ...next, book: slips(next.book, me(next), own) };
    }
    const c = prev && prev.cancelled;
    const b = next.book && next.book.betting;
    if (!c || !b || b.shoe_id !== c.shoe_id || b.round_number !== c.round_number) return next;
    const stale = ownSlip(next, next.book);
    if (!stale || stale.order > c.order) return next; // gone already, or a newer slip: the service's
    return { ...next, book: slips(next.book, me(next), null), cancelled: c };
  }

  /** The chat lines shown: each once (by push, by `/chat`, by the post's answer), oldest first;
   * a line removed (`chat_message_deleted`) never comes back — a `/chat` read or a push line
   * that arrives after its removal is dropped. */
  function makeChat() {
    const lines = new Map();
    const gone = new Set();
    /** At most CHAT_MAX kept: the first added dropped first (a long-open page stays small). */
    const cap = (kept) => {
      while (kept.size > CHAT_MAX) kept.delete(kept.keys().next().value);
    };
    return {
      add(m) {
        if (!m || lines.has(m.message_id) || gone.has(m.message_id)) return false;
        lines.set(m.message_id, m);
        cap(lines);
        return true;
      },
      remove(id) {
        gone.add(id);
        cap(gone);
        return lines.delete(id);
      },
      list: () => [...lines.values()].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)),
      sizes: () => ({ lines: lines.size, gone: gone.size }),
    };
  }

  /** What the page draws of a state: presence, the window and its slips, the shoe, the round. */
  function drawn(s) {
    const b = s.book && s.book.betting;
    const slipsOf = (o) => Object.fromEntries(Object.entries(o || {}).map(([k, v]) => [
      k, { bettor_id: v.bettor_id, bets: v.bets.map((x) => [x.type, x.amount]), total: v.total },
    ]));
    const cells = s.shoe && s.shoe.roads && s.shoe.roads.bead_plate ? s.shoe.roads.bead_plate.cells : [];
    return {
      seq: s.seq,
      phase: s.phase,
      deadline: ['betting', 'squeeze', 'locked'].includes(s.phase) ? s.deadline : null,
      seats: Object.fromEntries(Object.entries(s.seats || {}).map(([n, v]) => [n, v.bettor_id])),
      banker: s.banker ? s.banker.bettor_id : null,
      spectators: Object.keys(s.spectators || {}).sort(),
      watchers: s.watchers || [],
      place: s.you ? s.you.place : null,
      window: b ? { round_number: b.round_number, open: b.status === 'open', dealt: b.status === 'dealt' } : null,
      slips: b ? { seats: slipsOf(s.book.seats), spectators: slipsOf(s.book.spectators) } : null,
      shoe: s.shoe ? {
        shoe_id: s.shoe.shoe_id, rounds_dealt: s.shoe.rounds_dealt, cards_remaining: s.shoe.cards_remaining,
        history: s.shoe.history, cells, status: s.shoe.status,
      } : null,
      round: s.round,
      locked: s.locked ? { round_number: s.locked.round_number, beacon: s.locked.beacon } : null,
    };
  }

  const api = { apply, answered, snapshot, makeChat, drawn, phaseOf, moveShoe, CHAT_MAX };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.BaccTableState = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);

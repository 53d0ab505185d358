/**
 * The browser's checks of a bacc-pf-v2 proof (docs/bacc-pf-v2.md, "Verifying a v2 shoe"),
 * written from the spec, apart from the Python verifier: the header's beacon chain (drand
 * quicknet field for field, or a test beacon — shown so, never as drand), each round's lock
 * (bets_locked_at, order, the book root recomputed from its locked bets and book, the beacon round
 * the lock fixes), its beacon (the lock's round, its BLS signature: web/drand.js), the cards drawn
 * again from the cards remaining (web/bacc-pf-v2.js), beacon_unavailable voids apart (no cards;
 * priced when their beacon is in the proof) and the interventions with them apart.
 * web/verify.js calls these for a proof whose spec is bacc-pf-v2; the money is web/money.js's.
 *
 * Classic script: globalThis.BaccVerifyV2 in a page (after bacc-pf-v1.js, booktree.js,
 * bacc-pf-v2.js and drand.js), module.exports in Node.
 */
(function (root) {
  'use strict';

  const SPEC = 'bacc-pf-v2';
  const BEACON_VOID = 'beacon_unavailable';
  /** The beacon round of a lock is the first due at or after the lock plus this (beacon.py). */
  const MARGIN_MS = 3000;
  /** bacc-pf-v2: a beacon_unavailable void comes this long after its lock, never sooner. */
  const WAIT_MS = 30000;
  const CHAIN_FIELDS = ['chain_hash', 'public_key', 'scheme', 'genesis_ms', 'period_ms', 'test'];
  const CARD_KEYS = ['dealt_at', 'settlement', 'start', 'player', 'banker', 'player_total', 'banker_total', 'result'];

  function lib(name, file) {
    if (root[name]) return root[name];
    if (typeof require === 'function') return require(file);
    throw new Error(`${file} is not loaded`);
  }
  const pf = () => lib('BaccPF', './bacc-pf-v1.js');
  const book = () => lib('BaccBook', './booktree.js');
  const draw = () => lib('BaccPFv2', './bacc-pf-v2.js');
  const drand = () => lib('BaccaratDrand', './drand.js');

  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isTimestamp = (v) => typeof v === 'string' && pf().TIMESTAMP.test(v);
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const signed = (n) => `${n >= 0 ? '+' : '-'}${Math.abs(n).toLocaleString('en-US')}`;

  function u64(n) {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigUint64(0, BigInt(n), false);
    return out;
  }

  /** A test beacon's own chain hash: SHA-256("bacc-test-beacon-v1" ‖ key ‖ u64(genesis) ‖ u64(period)). */
  async function testChainHash(keyHex, genesisMs, periodMs) {
    const tag = new TextEncoder().encode('bacc-test-beacon-v1');
    const key = pf().fromHex(keyHex, 96, 'public key');
    const msg = new Uint8Array(tag.length + 96 + 16);
    msg.set(tag, 0);
    msg.set(key, tag.length);
    msg.set(u64(genesisMs), tag.length + 96);
    msg.set(u64(periodMs), tag.length + 104);
    return pf().toHex(await pf().sha256(msg));
  }

  /**
   * The header's beacon as a chain, never trusting a claim: quicknet only when every field is
   * drand's (test false); a test beacon only when its hash is its own. Throws an Error in words.
   */
  async function chainOf(doc) {
    if (!isObject(doc) || Object.keys(doc).sort().join() !== [...CHAIN_FIELDS].sort().join()) {
      throw new Error(`the header's beacon is {${CHAIN_FIELDS.join(', ')}}`);
    }
    if (!Number.isSafeInteger(doc.genesis_ms) || !Number.isSafeInteger(doc.period_ms) || doc.period_ms <= 0 ||
        typeof doc.test !== 'boolean') {
      throw new Error('the beacon\'s genesis_ms and period_ms are integers, test a boolean');
    }
    const scheme = drand().SCHEME;
    if (doc.scheme !== scheme) throw new Error(`the beacon's scheme: only ${scheme}`);
    if (!doc.test) {
      const q = drand().QUICKNET; // drand's published chain, pinned in web/drand.js
      const QUICKNET = { chain_hash: q.chain_hash, public_key: q.public_key, scheme: q.scheme,
        genesis_ms: q.genesis_ms, period_ms: q.period_ms, test: false };
      if (CHAIN_FIELDS.some((k) => doc[k] !== QUICKNET[k])) {
        throw new Error('a beacon not flagged a test beacon must be drand quicknet, field for field');
      }
      return { ...QUICKNET, is_test: false, label: 'drand quicknet' };
    }
    const own = await testChainHash(doc.public_key, doc.genesis_ms, doc.period_ms);
    if (doc.chain_hash !== own) throw new Error('a test beacon\'s chain_hash is not its own');
    return { ...doc, is_test: true, label: 'test beacon' };
  }

  /** Milliseconds since the epoch of a proof timestamp (…T…Z, milliseconds). */
  const msOf = (ts) => Date.parse(ts);

  /** The first beacon round due at or after lockMs + the margin. */
  function lockRound(chain, lockMs) {
    const t = lockMs + MARGIN_MS;
    if (t <= chain.genesis_ms) return 1;
    return Math.ceil((t - chain.genesis_ms) / chain.period_ms) + 1;
  }

  const roundTime = (chain, r) => chain.genesis_ms + (r - 1) * chain.period_ms;
  const isBeaconVoid = (r) => isObject(r) && isObject(r.void) && r.void.reason === BEACON_VOID;

  function byUtf8(a, b) {
    const x = new TextEncoder().encode(a);
    const y = new TextEncoder().encode(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  }

  /** The book root recomputed from the round's locked seated bets and its book (null: cannot). */
  async function bookRoot(proof, raw) {
    try {
      const roundId = `${proof.shoe_id}_r${raw.round_number}`;
      const slips = new Map();
      for (const bet of Array.isArray(raw.bets) ? raw.bets : []) {
        if (bet.role !== 'seated') continue;
        if (!slips.has(bet.bettor_ref)) slips.set(bet.bettor_ref, { seat: bet.seat, lines: [] });
        const slip = slips.get(bet.bettor_ref);
        if (slip.seat !== bet.seat) return null;
        slip.lines.push({ type: bet.type, amount: bet.amount, order: slip.lines.length });
      }
      const refs = [...slips.keys()].sort(byUtf8);
      const leaves = refs.map((ref) => book().leafBytes(roundId, ref, 'seated', slips.get(ref).lines, slips.get(ref).seat));
      const seated = pf().toHex(await book().root(leaves));
      const spectators = isObject(raw.book) ? raw.book.root : draw().EMPTY_ROOT;
      return await draw().lockedRoot(seated, spectators);
    } catch (e) {
      return null;
    }
  }

  /** A round's {book_root, beacon} as the draw takes them (beacon null for a beacon void). */
  function inputOf(raw, chain, where, priced = false) {
    if (!isObject(raw) || !isObject(raw.lock)) throw new Error(`${where} has no lock {locked_at, book_root, beacon_round}`);
    const b = raw.beacon;
    const beacon = isObject(b) ? { chain_hash: chain.chain_hash, round: b.round, signature: b.signature } : null;
    if (!beacon && !isBeaconVoid(raw)) throw new Error(`${where} has no beacon {round, signature}`);
    return { book_root: raw.lock.book_root, beacon: isBeaconVoid(raw) && !priced ? null : beacon };
  }

  /**
   * Every round drawn again: {rounds (one per proof round: the drawn round, a beacon void's
   * priced round, or a placeholder), money (the same, null for an unpriced void), cut_index,
   * burn_exposed, burn, first_start, ended_by_rules, dealt}. Throws on an unreadable round.
   */
  async function derive(proof, chain) {
    const inputs = proof.rounds.map((r, i) => inputOf(r, chain, `round ${i + 1}`));
    const args = { server_seed: proof.server_seed, shoe_number: proof.shoe_number, client_seed: proof.client_seed,
      rules: proof.rules, untilEnd: true };
    const shoe = await draw().deriveShoe({ ...args, rounds: inputs });
    const rounds = [];
    const moneyRounds = [];
    for (const [i, d] of shoe.rounds.entries()) {
      const raw = proof.rounds[i];
      if (d.beacon !== null) {
        rounds.push(d);
        moneyRounds.push(d);
        continue;
      }
      let priced = null;
      if (isObject(raw.beacon)) {
        const upTo = [...inputs.slice(0, i), inputOf(raw, chain, `round ${i + 1}`, true)];
        const again = await draw().deriveShoe({ ...args, rounds: upTo });
        priced = again.rounds[i];
      }
      rounds.push(priced || { round_number: i + 1, beacon_void: true });
      moneyRounds.push(priced);
    }
    const dealt = shoe.rounds.filter((d) => d.beacon !== null);
    return {
      rounds,
      money: moneyRounds,
      cut_index: shoe.cut_index,
      burn_exposed: shoe.burn_exposed,
      burn: shoe.burned.length,
      first_start: dealt.length ? dealt[0].start : null,
      ended_by_rules: shoe.ended_by_rules,
      dealt: dealt.length,
    };
  }

  /**
   * Each round's lock, beacon and, for a beacon void, its shape and price, in order; `note(i,
   * {field, expected, found, message})` records a mismatch of round i. Returns {verified,
   * beaconVoids}. BLS: BaccaratDrand.verifyBeacon, once per beacon.
   */
  async function checkRounds(proof, chain, note) {
    let verified = 0;
    let beaconVoids = 0;
    let previousLock = null;
    let previousDeal = null;
    for (const [i, raw] of proof.rounds.entries()) {
      const where = `round ${i + 1}`;
      const lock = raw.lock;
      const at = lock.locked_at;
      if (!isTimestamp(at)) {
        note(i, { field: 'lock.locked_at', expected: 'a UTC timestamp', found: at });
        continue;
      }
      if (raw.bets_locked_at !== at) note(i, { field: 'bets_locked_at', expected: at, found: raw.bets_locked_at });
      for (const [before, what] of [[previousLock, 'lock'], [previousDeal, 'deal']]) {
        if (before !== null && at < before) {
          note(i, { field: 'lock.locked_at', expected: `not before the previous ${what}`, found: at });
        }
      }
      previousLock = at;
      const root = await bookRoot(proof, raw);
      if (lock.book_root !== root) {
        note(i, { field: 'lock.book_root', expected: root, found: lock.book_root,
          message: `${where}: book root ${lock.book_root} is not the root of its locked bets and book (${root})` });
      }
      const due = lockRound(chain, msOf(at));
      if (lock.beacon_round !== due) {
        note(i, { field: 'lock.beacon_round', expected: due, found: lock.beacon_round,
          message: `${where}: lock before beacon: locked at ${at}, its beacon round is ${due} (the first due ` +
            `${MARGIN_MS} ms or more after the lock), found ${lock.beacon_round}` });
      }
      let beaconOk = false;
      if (isObject(raw.beacon)) {
        if (raw.beacon.round !== lock.beacon_round) {
          note(i, { field: 'beacon.round', expected: lock.beacon_round, found: raw.beacon.round });
        }
        const seen = { chain_hash: chain.chain_hash, round: raw.beacon.round, signature: raw.beacon.signature,
          is_test: chain.is_test };
        beaconOk = drand().verifyBeacon(chain, seen);
        if (beaconOk) verified++;
        else {
          note(i, { field: 'beacon.signature', expected: `a BLS signature of round ${raw.beacon.round}`,
            found: raw.beacon.signature,
            message: `${where}: beacon round ${raw.beacon.round}'s signature does not verify under the ` +
              `${chain.label}'s public key` });
        }
      }
      if (isBeaconVoid(raw)) {
        beaconVoids++;
        for (const k of CARD_KEYS) {
          if (raw[k] !== undefined && raw[k] !== null) {
            note(i, { field: k, expected: null, found: raw[k],
              message: `${where}: a beacon_unavailable void has no cards, deal or settlement, found ${k}` });
          }
        }
        if (raw.voided !== true) note(i, { field: 'voided', expected: true, found: raw.voided });
        if (!isTimestamp(raw.voided_at) || msOf(raw.voided_at) < msOf(at) + WAIT_MS ||
            raw.void.voided_at !== raw.voided_at) {
          note(i, { field: 'voided_at', expected: `its void's, ${WAIT_MS / 1000} s or more after the lock`,
            found: raw.voided_at,
            message: `${where}: a beacon_unavailable void is voided no sooner than ${WAIT_MS / 1000} s after ` +
              `its lock (${at}), found ${raw.voided_at}` });
        } else {
          previousDeal = raw.voided_at; // the next round locks after this one ended
        }
        if (!isObject(raw.beacon) && !chain.is_test) {
          note(i, { field: 'beacon', expected: `beacon round ${lock.beacon_round}`, found: null,
            message: `${where}: a beacon_unavailable void on ${chain.label} without its beacon round ` +
              `${lock.beacon_round}: drand keeps every round, so a final proof carries it and the void's price ` +
              '(an unpriced void would be a veto nobody sees the cost of)' });
        }
        const pricedOk = isObject(raw.beacon) && beaconOk;
        if (!pricedOk && raw.void.replaced !== null) {
          note(i, { field: 'void replaced', expected: null, found: raw.void.replaced,
            message: `${where}: a beacon_unavailable void without its beacon cannot be priced: replaced must be null` });
        }
        continue;
      }
      const dealt = raw.dealt_at;
      if (isTimestamp(dealt)) {
        if (dealt <= at || msOf(dealt) < roundTime(chain, lock.beacon_round)) {
          note(i, { field: 'dealt_at', expected: 'after the lock, once its beacon round was due', found: dealt });
        }
        previousDeal = dealt;
      }
    }
    return { verified, beaconVoids };
  }

  /** v1's interventions over the rounds that drew cards, then the beacon voids apart. */
  function interventions(endReason, rounds, possible, v1Interventions) {
    const voids = rounds.filter(isBeaconVoid);
    const iv = v1Interventions(endReason, rounds.filter((r) => !isBeaconVoid(r)), 0);
    let players = 0;
    let banker = 0;
    for (const r of voids) {
      const nets = isObject(r.void.replaced) && isObject(r.void.replaced.nets) ? r.void.replaced.nets : {};
      const pb = isObject(r.player_banker) ? r.player_banker.bettor_ref : null;
      for (const [ref, n] of Object.entries(nets)) {
        if (!Number.isSafeInteger(n)) continue;
        if (ref === pb) banker += n;
        else players += n;
      }
      if (isObject(r.book) && isObject(r.book.totals) && Number.isSafeInteger(r.book.totals.net)) players += r.book.totals.net;
    }
    return {
      ...iv,
      rounds_possible: possible,
      beacon_voids: voids.length,
      beacon_voids_priced: voids.filter((r) => r.void.replaced !== null && r.void.replaced !== undefined).length,
      beacon_voided_player_net: players,
      beacon_voided_player_banker_net: banker,
    };
  }

  /** The interventions line: v1's (an unknowable rounds_possible said so), then the beacon voids. */
  function interventionsText(iv, v1Text) {
    let line = v1Text({ ...iv, rounds_possible: iv.rounds_possible || 0 });
    if (iv.rounds_possible === null) {
      line = line.slice(0, line.lastIndexOf(' of ')) + ' (how many it would have dealt is unknowable)';
    }
    const n = iv.beacon_voids;
    if (n) {
      line += `; ${n} beacon_unavailable void${n === 1 ? '' : 's'} (no beacon in time), ${iv.beacon_voids_priced} ` +
        `priced: players would have netted ${signed(iv.beacon_voided_player_net)}`;
      if (iv.beacon_voided_player_banker_net) line += `, the player-banker ${signed(iv.beacon_voided_player_banker_net)}`;
    }
    return line;
  }

  const api = Object.freeze({
    SPEC,
    BEACON_VOID,
    chainOf,
    testChainHash,
    lockRound,
    isBeaconVoid,
    bookRoot,
    derive,
    checkRounds,
    interventions,
    interventionsText,
    plural,
  });
  root.BaccVerifyV2 = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

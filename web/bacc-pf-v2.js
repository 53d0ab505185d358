/*
 * bacc-pf-v2 — independent implementation of the v2 draw: each round's cards drawn from the
 * cards remaining in the shoe by a round key that mixes the shoe key K with the round number,
 * the round's book root and a public beacon (docs/bacc-pf-v2.md).
 *
 * Written from the spec page; it shares no code with the service. It reuses the v1 verifier's
 * primitives (web/bacc-pf-v1.js: the shoe key K, client hash, rules check, card codes), which
 * the page loads first (globalThis.BaccPF) and Node loads with require().
 *
 * Classic script, no imports: globalThis.BaccPFv2 in a browser, module.exports in Node >= 20.
 * Hashing is WebCrypto's (crypto.subtle), so every function that hashes is async.
 */
(function (root) {
  'use strict';

  const v1 =
    root.BaccPF ||
    (typeof require === 'function' ? require('./bacc-pf-v1.js') : undefined);
  if (!v1) throw new Error('bacc-pf-v2.js needs bacc-pf-v1.js loaded first');

  const TWO_32 = 4294967296;
  const enc = new TextEncoder();
  const ROUND_TAG = enc.encode('bacc-pf-v2/round'); // TAG2 ‖ "round", 16 bytes
  const STREAM_TAG = enc.encode('bacc-pf-v1/stream'); // K_r's stream is v1's stream
  /** The root of an empty bacc-book-v1 tree: SHA-256 of nothing. */
  const EMPTY_ROOT = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
  const MAX_U64 = (1n << 64n) - 1n;

  function subtle() {
    if (!root.crypto || !root.crypto.subtle) throw new Error('WebCrypto is not available');
    return root.crypto.subtle;
  }

  function join(parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  function bigEndian(value, bytes) {
    const out = new Uint8Array(bytes);
    let v = BigInt(value);
    for (let i = bytes - 1; i >= 0; i--) {
      out[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return out;
  }

  async function hmacKey(raw) {
    return subtle().importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  async function hmac(raw, msg) {
    return new Uint8Array(await subtle().sign('HMAC', await hmacKey(raw), msg));
  }

  /**
   * A round's book_root: SHA-256(0x01 ‖ seated_root ‖ spectators_root), the tree node over the
   * seated bettors' slips and the spectators' (v1.1's book.root; EMPTY_ROOT without a book).
   */
  async function lockedRoot(seatedRootHex, spectatorsRootHex) {
    const msg = join([
      Uint8Array.of(1),
      v1.fromHex(seatedRootHex, 32, 'seated root'),
      v1.fromHex(spectatorsRootHex, 32, 'spectators root'),
    ]);
    return v1.toHex(new Uint8Array(await subtle().digest('SHA-256', msg)));
  }

  /** A beacon round as a BigInt (JSON numbers, decimal strings and BigInts accepted). */
  function beaconRound(value) {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new Error('beacon round: give rounds above 2^53 as a string or BigInt');
    }
    const r = BigInt(value);
    if (r < 0n || r > MAX_U64) throw new Error('beacon round: a u64');
    return r;
  }

  /**
   * K_r = HMAC(K, "bacc-pf-v2/round" ‖ u32(r) ‖ book_root ‖ chain_hash ‖ u64(beacon round) ‖
   *            u16(len(signature)) ‖ signature) — all hex in, hex out.
   */
  async function roundKey(keyHex, roundNumber, bookRootHex, beacon) {
    if (!Number.isInteger(roundNumber) || roundNumber < 1 || roundNumber >= TWO_32) {
      throw new Error(`round number: 1 .. 2^32-1, got ${roundNumber}`);
    }
    const sig = v1.fromHex(beacon.signature, undefined, 'beacon signature');
    if (sig.length < 1 || sig.length > 0xffff) throw new Error('beacon signature: 1 .. 65535 bytes');
    const msg = join([
      ROUND_TAG,
      bigEndian(roundNumber, 4),
      v1.fromHex(bookRootHex, 32, 'book root'),
      v1.fromHex(beacon.chain_hash, 32, 'beacon chain hash'),
      bigEndian(beaconRound(beacon.round), 8),
      bigEndian(sig.length, 2),
      sig,
    ]);
    return v1.toHex(await hmac(v1.fromHex(keyHex, 32, 'shoe key'), msg));
  }

  /** stream(k): u32 words of HMAC(k, "bacc-pf-v1/stream" ‖ u32(j)), j = 0, 1, …; uniform(m). */
  async function streamOf(keyHex) {
    const key = await hmacKey(v1.fromHex(keyHex, 32, 'key'));
    const words = [];
    let block = 0;
    let next = 0;
    async function word() {
      if (next === words.length) {
        const b = new Uint8Array(
          await subtle().sign('HMAC', key, join([STREAM_TAG, bigEndian(block++, 4)])),
        );
        const view = new DataView(b.buffer);
        for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i, false));
      }
      return words[next++];
    }
    return {
      async uniform(m) {
        const limit = v1.uniformLimit(m);
        for (;;) {
          const x = await word();
          if (x < limit) return x % m;
        }
      },
    };
  }

  /** cut_index = 52·D − (cut_min + uniform(cut_max − cut_min + 1)) over stream(K); or null. */
  async function cutIndex(keyHex, rules) {
    if (rules.cut_max === 0) return null;
    const s = await streamOf(keyHex);
    return 52 * rules.decks - (rules.cut_min + (await s.uniform(rules.cut_max - rules.cut_min + 1)));
  }

  const total = (ids) => ids.reduce((t, id) => t + v1.cardPoint(id), 0) % 10;

  /** Banker's third card after Player drew one worth p3 (the drawing rules, by Banker total). */
  const BANKER_DRAWS_ON = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 9],
    [2, 3, 4, 5, 6, 7],
    [4, 5, 6, 7],
    [6, 7],
    [],
  ];

  /**
   * Draws one round with stream(K_r) from `remaining` (ascending ids; changed in place): the
   * burn first when `burn`, then P, B, P, B and the third cards the rules ask for. Returns the
   * ids in draw order by role.
   */
  async function drawRound(roundKeyHex, remaining, burn) {
    const s = await streamOf(roundKeyHex);
    const draw = async () => remaining.splice(await s.uniform(remaining.length), 1)[0];
    const burned = [];
    let exposed = null;
    if (burn) {
      exposed = await draw();
      const rank = exposed % 13;
      const v = rank < 9 ? rank + 1 : 10;
      for (let i = 0; i < v; i++) burned.push(await draw());
    }
    const player = [];
    const banker = [];
    player.push(await draw());
    banker.push(await draw());
    player.push(await draw());
    banker.push(await draw());
    const pt = total(player);
    const bt = total(banker);
    if (pt < 8 && bt < 8) {
      if (pt <= 5) {
        const third = await draw();
        player.push(third);
        if (BANKER_DRAWS_ON[bt].includes(v1.cardPoint(third))) banker.push(await draw());
      } else if (bt <= 5) {
        banker.push(await draw());
      }
    }
    return { exposed, burned, player, banker };
  }

  /**
   * A v2 shoe from K and each round's {book_root, beacon} (beacon null: the round was voided
   * beacon_unavailable and draws nothing). Stops when the rules end the shoe; a round given
   * past that end throws unless `untilEnd`.
   */
  async function shoeFromKey(keyHex, rulesIn, rounds, untilEnd = false) {
    const rules = v1.validateRules(rulesIn);
    const size = 52 * rules.decks;
    const cut = await cutIndex(keyHex, rules);
    const remaining = Array.from({ length: size }, (_, i) => i);
    const order = []; // drawn ids by position
    const out = [];
    let burnExposed = null;
    let burned = [];
    let dealt = 0;
    let lastDue = false;
    let ended = false;
    let r = 0;
    for (const input of rounds) {
      r++;
      if (ended) {
        if (untilEnd) break;
        throw new Error(`round ${r}: the shoe ended after round ${r - 1}`);
      }
      if (input.beacon === null || input.beacon === undefined) {
        out.push({ round_number: r, beacon: null });
        continue;
      }
      const key = await roundKey(keyHex, r, input.book_root, input.beacon);
      const d = await drawRound(key, remaining, rules.burn === 1 && order.length === 0);
      if (d.exposed !== null) {
        burnExposed = d.exposed;
        burned = d.burned;
        order.push(d.exposed, ...d.burned);
      }
      const start = order.length;
      const [p, b] = [d.player, d.banker];
      order.push(p[0], b[0], p[1], b[1], ...p.slice(2), ...b.slice(2));
      const pt = total(p);
      const bt = total(b);
      out.push({
        round_number: r,
        key,
        start,
        player: p.map(v1.cardCode),
        banker: b.map(v1.cardCode),
        player_total: pt,
        banker_total: bt,
        result: pt > bt ? 'player' : bt > pt ? 'banker' : 'tie',
      });
      // The end of the shoe, counted over the rounds that drew cards.
      dealt++;
      const next = order.length;
      if ((rules.round_limit > 0 && dealt === rules.round_limit) || lastDue) ended = true;
      else if (cut !== null && next > cut) {
        if (start >= cut) ended = true;
        else lastDue = true;
      }
    }
    return {
      key: keyHex,
      cut_index: cut,
      burn_exposed: burnExposed === null ? null : v1.cardCode(burnExposed),
      burned: burned.map(v1.cardCode),
      rounds: out,
      ended_by_rules: ended,
      card_ids: [...order, ...remaining],
      cards_drawn: order.length,
    };
  }

  /** The same from the revealed s_i, the shoe number and the client seed (K as in v1). */
  async function deriveShoe({ server_seed, shoe_number, client_seed, rules, rounds, untilEnd }) {
    const r = v1.validateRules(rules);
    const key = await v1.shoeKey(server_seed, await v1.clientHash(client_seed), shoe_number, r);
    return shoeFromKey(key, r, rounds, untilEnd);
  }

  const api = Object.freeze({
    version: 'bacc-pf-v2',
    EMPTY_ROOT,
    lockedRoot,
    roundKey,
    cutIndex,
    shoeFromKey,
    deriveShoe,
  });
  root.BaccPFv2 = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

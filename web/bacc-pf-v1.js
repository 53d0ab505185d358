/*
 * bacc-pf-v1 — independent verifier of the provably fair baccarat shoe.
 *
 * Written from the public contract (docs/bacc-pf-v1.md: the shoe, and the signed public proof —
 * canonical bytes, pages, ES256 manifest, bettor refs, interventions) only; it shares no code
 * with the service.
 *
 * One file, no imports. It works:
 *   - in a browser page, even from file://, as a classic <script>: use globalThis.BaccPF;
 *   - in Node >= 20 via require() or import (CommonJS module.exports; default import in ESM).
 * SHA-256 and HMAC-SHA-256 come from WebCrypto (globalThis.crypto.subtle), so every function that
 * hashes is async.
 */
(function (root) {
  'use strict';

  // ---------------------------------------------------------------------------------------------
  // Constants

  const TWO_32 = 4294967296; // 2^32, exactly representable as a double
  const RANKS = 'A23456789TJQK';
  const SUITS = 'SHDC';
  const MAX_CLIENT_SEED_BYTES = 256;
  const WORDS_PER_BLOCK = 8; // 32-byte HMAC block = 8 u32 words
  const REFILL_BLOCKS = 8; // blocks fetched at once when the stream runs dry

  const encoder = new TextEncoder();
  const ascii = (s) => encoder.encode(s); // tags are plain ASCII, so UTF-8 == ASCII here
  const TAG = ascii('bacc-pf-v1/');
  const SUB_CHAIN = ascii('chain');
  const SUB_CLIENT = ascii('client');
  const SUB_SHOE = ascii('shoe');
  const SUB_STREAM = ascii('stream');

  // ---------------------------------------------------------------------------------------------
  // Bytes and hex

  function subtle() {
    const c = root.crypto;
    if (!c || !c.subtle) {
      throw new Error('WebCrypto (crypto.subtle) is not available in this context');
    }
    return c.subtle;
  }

  function concat(...parts) {
    let length = 0;
    for (const p of parts) length += p.length;
    const out = new Uint8Array(length);
    let offset = 0;
    for (const p of parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  }

  function toHex(bytes) {
    let s = '';
    for (const b of bytes) s += b.toString(16).padStart(2, '0');
    return s;
  }

  /** Hex (either case accepted) to bytes; `expectedBytes` optionally enforces the length. */
  function fromHex(hex, expectedBytes, what = 'hex') {
    if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
      throw new Error(`${what}: not a hex string`);
    }
    if (expectedBytes !== undefined && hex.length !== 2 * expectedBytes) {
      throw new Error(`${what}: expected ${expectedBytes} bytes, got ${hex.length / 2}`);
    }
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }

  function checkUint(value, bits, what) {
    const max = 2 ** bits - 1;
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw new Error(`${what}: must be an integer in 0..${max}, got ${value}`);
    }
  }

  function u8(v) {
    checkUint(v, 8, 'u8');
    return Uint8Array.of(v);
  }

  function u16(v) {
    checkUint(v, 16, 'u16');
    return Uint8Array.of(v >>> 8, v & 0xff);
  }

  function u32(v) {
    checkUint(v, 32, 'u32');
    return Uint8Array.of(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  }

  function constantTimeEqual(a, b) {
    if (a.length !== b.length) return false;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Primitives: H = SHA-256, HMAC = HMAC-SHA-256 keyed with raw bytes

  async function sha256(bytes) {
    return new Uint8Array(await subtle().digest('SHA-256', bytes));
  }

  function importHmacKey(rawKey) {
    return subtle().importKey('raw', rawKey, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  async function hmacWithKey(cryptoKey, msg) {
    return new Uint8Array(await subtle().sign('HMAC', cryptoKey, msg));
  }

  async function hmac(rawKey, msg) {
    return hmacWithKey(await importHmacKey(rawKey), msg);
  }

  // ---------------------------------------------------------------------------------------------
  // Seed chain

  /** One chain step: s_{k-1} = H(TAG ‖ "chain" ‖ s_k). Bytes in, bytes out. */
  function chainStep(bytes) {
    return sha256(concat(TAG, SUB_CHAIN, bytes));
  }

  /** Applies the chain step `steps` times to `secretHex`; returns the resulting hex. */
  async function chainWalk(secretHex, steps) {
    checkUint(steps, 32, 'steps');
    let s = fromHex(secretHex, 32, 'server seed');
    for (let k = 0; k < steps; k++) s = await chainStep(s);
    return toHex(s);
  }

  /** True when applying the chain step `shoeNumber` times to s_i gives the anchor s_0. */
  async function verifyLink(secretHex, shoeNumber, anchorHex) {
    if (!Number.isInteger(shoeNumber) || shoeNumber < 1) {
      throw new Error(`shoe number must be an integer >= 1, got ${shoeNumber}`);
    }
    const anchor = fromHex(anchorHex, 32, 'anchor');
    const reached = fromHex(await chainWalk(secretHex, shoeNumber));
    return constantTimeEqual(reached, anchor);
  }

  // ---------------------------------------------------------------------------------------------
  // Per-shoe key

  /** A JS string is UTF-8 encodable as-is only if it has no unpaired surrogate. */
  function isWellFormedString(s) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const next = s.charCodeAt(i + 1); // NaN past the end
        if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
        i++;
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        return false;
      }
    }
    return true;
  }

  /** UTF-8 bytes of the client seed, exactly as received (no trimming, no normalisation). */
  function clientSeedBytes(clientSeed) {
    if (typeof clientSeed !== 'string') throw new Error('client seed must be a string');
    if (!isWellFormedString(clientSeed)) {
      // TextEncoder would silently replace the lone surrogate by U+FFFD: refuse instead.
      throw new Error('client seed is not valid Unicode (unpaired surrogate)');
    }
    return encoder.encode(clientSeed);
  }

  /** client_hash = H(TAG ‖ "client" ‖ utf8(client_seed)), lowercase hex. */
  async function clientHash(clientSeed) {
    return toHex(await sha256(concat(TAG, SUB_CLIENT, clientSeedBytes(clientSeed))));
  }

  /**
   * Checks a table configuration against the contract; throws on anything the service must
   * refuse. Returns a normalised copy {decks, burn, cut_min, cut_max, round_limit}.
   */
  function validateRules(rules) {
    if (!rules || typeof rules !== 'object') throw new Error('rules: missing');
    const r = {
      decks: rules.decks,
      burn: rules.burn,
      cut_min: rules.cut_min,
      cut_max: rules.cut_max,
      round_limit: rules.round_limit,
    };
    checkUint(r.decks, 8, 'decks');
    checkUint(r.burn, 8, 'burn');
    checkUint(r.cut_min, 8, 'cut_min');
    checkUint(r.cut_max, 8, 'cut_max');
    checkUint(r.round_limit, 16, 'round_limit');
    const size = 52 * r.decks;
    if (r.decks < 1) throw new Error('decks: at least 1');
    if (r.burn !== 0 && r.burn !== 1) throw new Error('burn: must be 0 or 1');
    if (r.cut_max > 0) {
      if (r.cut_min < 11) throw new Error('cut_min: must be >= 11 with a cut card');
      if (r.cut_min > r.cut_max) throw new Error('cut_min must not exceed cut_max');
      if (r.cut_max >= size) throw new Error('cut_max: must be below the shoe size (52·D)');
    } else {
      if (r.cut_min !== 0) throw new Error('cut_min without cut_max (both 0 = no cut card)');
      if (r.round_limit === 0) throw new Error('without a cut card a round limit is required');
      if (1 + 10 + 6 * r.round_limit > size) {
        throw new Error('round_limit: the shoe could run out of cards (1 + 10 + 6·R > 52·D)');
      }
    }
    return r;
  }

  /** rules = u8(D) ‖ u8(burn) ‖ u8(cut_min) ‖ u8(cut_max) ‖ u16(round_limit) — 6 bytes. */
  function rulesBytes(rules) {
    return concat(
      u8(rules.decks),
      u8(rules.burn),
      u8(rules.cut_min),
      u8(rules.cut_max),
      u16(rules.round_limit),
    );
  }

  /** K = HMAC(key = s_i, msg = TAG ‖ "shoe" ‖ client_hash ‖ u32(i) ‖ rules), lowercase hex. */
  async function shoeKey(secretHex, clientHashHex, shoeNumber, rules) {
    const msg = concat(
      TAG,
      SUB_SHOE,
      fromHex(clientHashHex, 32, 'client hash'),
      u32(shoeNumber),
      rulesBytes(rules),
    );
    return toHex(await hmac(fromHex(secretHex, 32, 'server seed'), msg));
  }

  // ---------------------------------------------------------------------------------------------
  // Random stream and uniform draws

  /** block_j = HMAC(key = K, msg = TAG ‖ "stream" ‖ u32(j)), lowercase hex. */
  async function streamBlock(keyHex, j) {
    return toHex(await hmac(fromHex(keyHex, 32, 'shoe key'), concat(TAG, SUB_STREAM, u32(j))));
  }

  /**
   * The stream of u32 words: blocks' bytes in order, read big-endian, 8 words per block.
   * The HMAC key is imported once; blocks are computed in parallel batches.
   */
  class WordStream {
    constructor(cryptoKey) {
      this.cryptoKey = cryptoKey;
      this.words = []; // every word produced so far
      this.position = 0; // index of the next word to hand out
      this.nextBlock = 0;
    }

    static async fromKeyHex(keyHex) {
      return new WordStream(await importHmacKey(fromHex(keyHex, 32, 'shoe key')));
    }

    /** Computes `count` more blocks (in parallel) and appends their words. */
    async addBlocks(count) {
      const first = this.nextBlock;
      this.nextBlock += count;
      const jobs = [];
      for (let j = first; j < first + count; j++) {
        jobs.push(hmacWithKey(this.cryptoKey, concat(TAG, SUB_STREAM, u32(j))));
      }
      for (const block of await Promise.all(jobs)) {
        const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
        for (let w = 0; w < WORDS_PER_BLOCK; w++) this.words.push(view.getUint32(4 * w, false));
      }
    }

    /** Makes sure at least `count` unread words are buffered. */
    async prefetch(count) {
      const missing = this.position + count - this.words.length;
      if (missing > 0) await this.addBlocks(Math.ceil(missing / WORDS_PER_BLOCK));
    }

    async nextWord() {
      if (this.position >= this.words.length) await this.addBlocks(REFILL_BLOCKS);
      return this.words[this.position++];
    }

    /** uniform(m): rejection sampling, without modulo bias. */
    async uniform(m) {
      const limit = uniformLimit(m);
      for (;;) {
        const x = await this.nextWord();
        if (x < limit) return x % m;
      }
    }
  }

  /** limit = 2^32 − (2^32 mod m), for 1 ≤ m ≤ 2^32. Exact in doubles (all values < 2^53). */
  function uniformLimit(m) {
    if (!Number.isInteger(m) || m < 1 || m > TWO_32) {
      throw new Error(`uniform: m must be an integer in 1..2^32, got ${m}`);
    }
    return TWO_32 - (TWO_32 % m);
  }

  /**
   * uniform(m) over a given list of u32 words (for boundary vectors).
   * Returns {value, consumed}; throws if every word is rejected.
   */
  function uniformFromWords(words, m) {
    const limit = uniformLimit(m);
    for (let i = 0; i < words.length; i++) {
      const x = words[i];
      checkUint(x, 32, 'word');
      if (x < limit) return { value: x % m, consumed: i + 1 };
    }
    throw new Error('uniform: ran out of words (all rejected)');
  }

  // ---------------------------------------------------------------------------------------------
  // Cards and the game

  function cardCode(id) {
    const c = id % 52;
    return RANKS[c % 13] + SUITS[Math.floor(c / 13)];
  }

  /** Baccarat point: A = 1, 2–9 face value, T/J/Q/K = 0. */
  function cardPoint(id) {
    const rank = id % 13; // 0 = A … 8 = 9, 9..12 = T J Q K
    return rank < 9 ? rank + 1 : 0;
  }

  /** Cards burned after the exposed first card: its point value, or 10 for T/J/Q/K. */
  function burnCount(id) {
    const rank = id % 13;
    return rank < 9 ? rank + 1 : 10;
  }

  const handTotal = (ids) => ids.reduce((sum, id) => sum + cardPoint(id), 0) % 10;

  /** Banker's draw decision after Player drew a third card of point value p3. */
  function bankerDrawsAfterPlayerThird(bankerTotal, p3) {
    switch (bankerTotal) {
      case 0:
      case 1:
      case 2:
        return true;
      case 3:
        return p3 !== 8;
      case 4:
        return p3 >= 2 && p3 <= 7;
      case 5:
        return p3 >= 4 && p3 <= 7;
      case 6:
        return p3 === 6 || p3 === 7;
      default:
        return false; // 7 (8 and 9 are naturals)
    }
  }

  /** Deals one round from `shoe` (card ids) starting at `start`; returns ids and next cursor. */
  function dealRound(shoe, start) {
    let cursor = start;
    const take = () => {
      if (cursor >= shoe.length) throw new Error('the shoe ran out of cards');
      return shoe[cursor++];
    };
    const player = [];
    const banker = [];
    player.push(take());
    banker.push(take());
    player.push(take());
    banker.push(take());

    const p2 = handTotal(player);
    const b2 = handTotal(banker);
    const natural = p2 >= 8 || b2 >= 8;
    if (!natural) {
      if (p2 <= 5) {
        const third = take();
        player.push(third);
        if (bankerDrawsAfterPlayerThird(b2, cardPoint(third))) banker.push(take());
      } else if (b2 <= 5) {
        banker.push(take());
      }
    }
    return { player, banker, natural, next: cursor };
  }

  // ---------------------------------------------------------------------------------------------
  // The whole shoe

  /**
   * Derives a shoe from its revealed secret and public inputs.
   * @param {{server_seed: string, shoe_number: number, client_seed: string,
   *          rules: {decks:number, burn:number, cut_min:number, cut_max:number,
   *                  round_limit:number}}} input
   */
  async function deriveShoe({ server_seed, shoe_number, client_seed, rules }) {
    const r = validateRules(rules);
    if (!Number.isInteger(shoe_number) || shoe_number < 1 || shoe_number >= TWO_32) {
      throw new Error(`shoe number must be an integer in 1..2^32-1, got ${shoe_number}`);
    }
    const seedBytes = clientSeedBytes(client_seed);
    if (seedBytes.length > MAX_CLIENT_SEED_BYTES) {
      throw new Error(`client seed: at most ${MAX_CLIENT_SEED_BYTES} UTF-8 bytes`);
    }

    const client_hash = await clientHash(client_seed);
    const key = await shoeKey(server_seed, client_hash, shoe_number, r);
    const stream = await WordStream.fromKeyHex(key);
    const size = 52 * r.decks;
    // The shuffle needs size − 1 words (plus rare rejections) and the cut card one more.
    await stream.prefetch(size + 8);

    // 1. Fisher–Yates, from the back.
    const shoe = Array.from({ length: size }, (_, c) => c);
    for (let t = size - 1; t >= 1; t--) {
      const j = await stream.uniform(t + 1);
      const tmp = shoe[t];
      shoe[t] = shoe[j];
      shoe[j] = tmp;
    }

    // 2. Cut card, from the same stream right after the shuffle.
    let cut_index = null;
    if (r.cut_max > 0) {
      cut_index = size - (r.cut_min + (await stream.uniform(r.cut_max - r.cut_min + 1)));
    }

    // 3. Burn.
    let burn = 0;
    let burn_exposed = null;
    let cursor = 0;
    if (r.burn === 1) {
      burn_exposed = cardCode(shoe[0]);
      burn = burnCount(shoe[0]);
      cursor = 1 + burn;
    }

    // Rounds.
    const rounds = [];
    let extraRoundDue = false; // the cut card came out mid-round: exactly one more round
    for (let n = 1; ; n++) {
      const start = cursor;
      const dealt = dealRound(shoe, start);
      cursor = dealt.next;
      const player_total = handTotal(dealt.player);
      const banker_total = handTotal(dealt.banker);
      rounds.push({
        round_number: n,
        start,
        player: dealt.player.map(cardCode),
        banker: dealt.banker.map(cardCode),
        player_total,
        banker_total,
        result:
          player_total > banker_total ? 'player' : banker_total > player_total ? 'banker' : 'tie',
      });

      if (r.round_limit > 0 && n === r.round_limit) break;
      if (extraRoundDue) break;
      if (cut_index !== null && cursor > cut_index) {
        // The round used the card at cut_index or later.
        if (start >= cut_index) break;
        extraRoundDue = true;
      }
    }

    return {
      client_hash,
      cut_index,
      burn,
      burn_exposed,
      cards: shoe.map(cardCode),
      rounds,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The public proof (docs/bacc-pf-v1.md, "The public proof" … "The signature")

  const SIGNATURE_SPEC = 'bacc-proof-sig-v1';
  const PAGE_BUDGET = 900000;
  const VOID_REASONS = Object.freeze(['misdeal', 'technical_fault', 'operator_error', 'regulatory']);
  const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  /** Compares two strings by Unicode code point (not by UTF-16 code unit, as sort() does). */
  function compareCodePoints(a, b) {
    const x = Array.from(a);
    const y = Array.from(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d !== 0) return d;
    }
    return x.length - y.length;
  }

  /**
   * canonical(v) as text: no whitespace, object keys sorted by code point at every depth,
   * integers only (within ±(2^53 − 1)), strings escaped only where JSON requires — which is what
   * JSON.stringify does for a string without lone surrogates. Throws outside a proof's domain.
   */
  function canonicalJson(value, where = 'proof') {
    if (value === null || value === true || value === false) return JSON.stringify(value);
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) {
        throw new Error(`${where}: ${value} is not an integer within ±(2^53 − 1)`);
      }
      return JSON.stringify(value === 0 ? 0 : value); // -0 is 0
    }
    if (typeof value === 'string') {
      if (!isWellFormedString(value)) throw new Error(`${where}: a string is not valid Unicode`);
      return JSON.stringify(value);
    }
    if (Array.isArray(value)) {
      return `[${value.map((v, i) => canonicalJson(v, `${where}[${i}]`)).join(',')}]`;
    }
    if (typeof value === 'object') {
      const keys = Object.keys(value).sort(compareCodePoints);
      return `{${keys
        .map((k) => {
          if (!isWellFormedString(k)) throw new Error(`${where}: a key is not valid Unicode`);
          return `${JSON.stringify(k)}:${canonicalJson(value[k], `${where}.${k}`)}`;
        })
        .join(',')}}`;
    }
    throw new Error(`${where}: a proof holds no ${typeof value} values`);
  }

  const canonicalBytes = (value) => encoder.encode(canonicalJson(value));

  /** SHA-256 (lowercase hex) of canonical(page without its "signature" member). */
  async function pageHash(page) {
    const copy = {};
    for (const k of Object.keys(page)) if (k !== 'signature') copy[k] = page[k];
    return toHex(await sha256(canonicalBytes(copy)));
  }

  /** The header of a page: every member but rounds, page and signature. */
  function headerOf(page) {
    const out = {};
    for (const k of Object.keys(page)) {
      if (k !== 'rounds' && k !== 'page' && k !== 'signature') out[k] = page[k];
    }
    return out;
  }

  const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

  /** base64url without padding (RFC 4648 §5). */
  function toBase64url(bytes) {
    let out = '';
    let i = 0;
    for (; i + 2 < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
      out += B64URL[n >> 18] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63] + B64URL[n & 63];
    }
    const rest = bytes.length - i;
    if (rest === 1) {
      const n = bytes[i] << 16;
      out += B64URL[n >> 18] + B64URL[(n >> 12) & 63];
    } else if (rest === 2) {
      const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
      out += B64URL[n >> 18] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63];
    }
    return out;
  }

  /** The bytes of base64url text without padding; throws on anything else. */
  function fromBase64url(text) {
    if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
      throw new Error('not base64url without padding');
    }
    const out = new Uint8Array(Math.floor((text.length * 3) / 4));
    let bits = 0;
    let acc = 0;
    let o = 0;
    for (const ch of text) {
      acc = (acc << 6) | B64URL.indexOf(ch);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out[o++] = (acc >> bits) & 0xff;
      }
    }
    if (toBase64url(out) !== text) throw new Error('not the canonical base64url of its bytes');
    return out;
  }

  /** RFC 7638 thumbprint of an EC public JWK: the key_id. */
  async function jwkThumbprint(jwk) {
    const members = { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
    for (const v of Object.values(members)) {
      if (typeof v !== 'string') throw new Error("a JWK's crv, kty, x and y are strings");
    }
    return toBase64url(await sha256(canonicalBytes(members)));
  }

  /** ES256: does the 64-byte r ‖ s `signature` verify over `message` with the P-256 `jwk`? */
  async function verifyEs256(jwk, message, signature) {
    if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || signature.length !== 64) return false;
    let key;
    try {
      key = await subtle().importKey(
        'jwk',
        { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, ext: true },
        { name: 'ECDSA', namedCurve: 'P-256' },
        false,
        ['verify'],
      );
    } catch (_) {
      return false; // not a point on P-256
    }
    return subtle().verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, message);
  }

  const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

  /** bettor_ref = "br_" + base32_lower_nopad(HMAC(ref_key, "bacc-ref-v1" ‖ 0 ‖ table ‖ 0 ‖ id)[0:15]). */
  async function bettorRef(refKeyHex, tableId, bettorId) {
    const zero = Uint8Array.of(0);
    const msg = concat(ascii('bacc-ref-v1'), zero, encoder.encode(tableId), zero,
      encoder.encode(bettorId));
    const mac = (await hmac(fromHex(refKeyHex, 32, 'ref key'), msg)).slice(0, 15);
    let out = 'br_';
    for (let i = 0; i < 15; i += 5) { // 5 bytes = 40 bits = 8 base32 characters
      let n = 0n;
      for (let k = 0; k < 5; k++) n = (n << 8n) | BigInt(mac[i + k]);
      for (let k = 7; k >= 0; k--) out += BASE32[Number((n >> BigInt(5 * k)) & 31n)];
    }
    return out;
  }

  /**
   * The page split: rounds in order; a page takes the next round while the canonical size of
   * {...header, rounds: its rounds} stays within `budget`; every page takes at least one round.
   * Returns the rounds of each page.
   */
  function splitPages(header, rounds, budget = PAGE_BUDGET) {
    const size = (list) => canonicalBytes({ ...header, rounds: list }).length;
    const pages = [[]];
    for (const r of rounds) {
      const page = pages[pages.length - 1];
      if (page.length && size([...page, r]) > budget) pages.push([r]);
      else page.push(r);
    }
    return pages;
  }

  /**
   * {voided_rounds, voided_player_net, voided_player_banker_net, closed_early, rounds_dealt,
   * rounds_possible}: voided_player_net = what the voids took from the bettors (their
   * replaced nets), voided_player_banker_net = the round's player-banker's, apart.
   */
  function interventionsOf(endReason, rounds, roundsPossible) {
    let voided = 0;
    let net = 0;
    let bankerNet = 0;
    for (const r of rounds) {
      if (!r || r.void === null || r.void === undefined) continue;
      voided++;
      const nets = r.void && r.void.replaced && r.void.replaced.nets;
      // bacc-pf-v1.1: the book's bettors are players too
      const bookNet = r.book && r.book.totals ? r.book.totals.net : undefined;
      if (Number.isSafeInteger(bookNet)) net += bookNet;
      const pb = r.player_banker && typeof r.player_banker === 'object' ? r.player_banker.bettor_ref : undefined;
      if (nets && typeof nets === 'object') {
        for (const [ref, v] of Object.entries(nets)) {
          if (!Number.isSafeInteger(v)) continue;
          if (pb !== undefined && ref === pb) bankerNet += v;
          else net += v;
        }
      }
    }
    return {
      voided_rounds: voided,
      voided_player_net: net,
      voided_player_banker_net: bankerNet,
      closed_early: endReason === 'closed',
      rounds_dealt: rounds.length,
      rounds_possible: roundsPossible,
    };
  }

  /**
   * recomputed in the form claimed states it: a proof signed before voids were priced for the
   * bettors alone has no voided_player_banker_net, and its voided_player_net nets every replaced
   * net, the player-banker's included (the earlier form, still verified).
   */
  function asClaimed(recomputed, claimed) {
    if (Object.prototype.hasOwnProperty.call(claimed, 'voided_player_banker_net')) return { ...recomputed };
    const { voided_player_banker_net: bankerNet, ...earlier } = recomputed;
    earlier.voided_player_net = recomputed.voided_player_net + bankerNet;
    return earlier;
  }

  /** The one interventions line, e.g. "no voids; played to the end (30 of 30 rounds)". */
  function interventionsText(iv) {
    const grouped = (n) => String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const signed = (n) => (n > 0 ? `+${grouped(n)}` : n < 0 ? `-${grouped(n)}` : '0');
    const n = iv.voided_rounds;
    const voids = n === 0
      ? 'no voids'
      : `${n} voided round${n === 1 ? '' : 's'}, players would have netted ${signed(iv.voided_player_net)}`
        + (iv.voided_player_banker_net ? `, the player-banker ${signed(iv.voided_player_banker_net)}` : '');
    const end = iv.closed_early
      ? `closed early after round ${iv.rounds_dealt} of ${iv.rounds_possible}`
      : `played to the end (${iv.rounds_dealt} of ${iv.rounds_possible} rounds)`;
    return `${voids}; ${end}`;
  }

  // ---------------------------------------------------------------------------------------------
  // Export

  const api = Object.freeze({
    version: 'bacc-pf-v1',
    // contract functions
    chainStep,
    verifyLink,
    clientHash,
    shoeKey,
    deriveShoe,
    uniformFromWords,
    // helpers, useful to a verifier page and to tests
    chainWalk,
    streamBlock,
    validateRules,
    rulesBytes,
    uniformLimit,
    cardCode,
    cardPoint,
    sha256,
    toHex,
    fromHex,
    // the public proof: canonical bytes, pages, signature, refs, interventions
    SIGNATURE_SPEC,
    PAGE_BUDGET,
    VOID_REASONS,
    TIMESTAMP,
    canonicalJson,
    canonicalBytes,
    pageHash,
    headerOf,
    toBase64url,
    fromBase64url,
    jwkThumbprint,
    verifyEs256,
    bettorRef,
    splitPages,
    interventionsOf,
    asClaimed,
    interventionsText,
  });

  root.BaccPF = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
    // Never runs: names the exports for Node's CommonJS lexer, so that ESM code can also write
    // `import { deriveShoe } from './bacc-pf-v1.js'` (the default import always works).
    0 && (module.exports = { chainStep, verifyLink, clientHash, shoeKey, deriveShoe,
      uniformFromWords, chainWalk, streamBlock, validateRules, rulesBytes, uniformLimit,
      cardCode, cardPoint, sha256, toHex, fromHex, SIGNATURE_SPEC, PAGE_BUDGET, VOID_REASONS,
      TIMESTAMP, canonicalJson, canonicalBytes, pageHash, headerOf, toBase64url, fromBase64url,
      jwkThumbprint, verifyEs256, bettorRef, splitPages, interventionsOf, asClaimed, interventionsText });
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

// The signed public proof (docs/bacc-pf-v1.md, "The public proof" … "Verifying a proof") in the
// independent JavaScript verifier: the page's own vector blocks and tests/vectors/proof_v2.json
// recomputed with WebCrypto; the signed two-page sample verifies; any changed byte fails; pages
// edited and signed again (with the TEST ONLY key, through WebCrypto) fail on what a signature
// cannot vouch for. Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const B = require('../bacc-pf-v1.js');
const Verify = require('../verify.js');

const ROOT = path.join(__dirname, '..', '..');
const read = (p) => JSON.parse(fs.readFileSync(path.join(ROOT, p), 'utf8'));
const V = read('tests/vectors/proof_v2.json');
const SAMPLE = read('tests/vectors/proof_v2_sample.json').pages;
const KEY = read('tests/vectors/TEST-ONLY-proof-signing-key.json');
const KEYS = { keys: KEY.keys };
const LINE = '1 voided round, players would have netted +580; closed early after round 6 of 30';
const clone = (v) => JSON.parse(JSON.stringify(v));
const pages = () => clone(SAMPLE);
const check = (doc, options = {}) => Verify.verifyProof(doc, { keys: KEYS, keysSource: 'the test keys', ...options });

/** The page's vector blocks: name → text. */
function pageBlocks() {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'bacc-pf-v1.md'), 'utf8');
  const out = {};
  for (const m of text.matchAll(/<!-- vector: ([\w:.-]+) -->\n```[\w-]*\n([\s\S]*?)\n```/g)) out[m[1]] = m[2];
  return out;
}
const kv = (block) => Object.fromEntries(block.split('\n').filter((l) => l.includes(' = '))
  .map((l) => [l.slice(0, l.indexOf(' = ')).trim(), l.slice(l.indexOf(' = ') + 3)]));

// ------------------------------------------------------------------------------------------------
// Vectors

test('canonical bytes: the hand-written vector, key order by code point', async () => {
  const c = V.canonical;
  assert.equal(B.canonicalJson(c.input), c.canonical);
  const bytes = B.canonicalBytes(c.input);
  assert.equal(bytes.length, c.bytes);
  assert.equal(B.toHex(await B.sha256(bytes)), c.sha256);
  const block = pageBlocks()['canonical-output'];
  assert.ok(block.includes(`sha256 = ${c.sha256}`));
  assert.ok(block.replace(/\n/g, '').includes(B.toHex(bytes)));
  // JavaScript's default sort puts the astral key first; canonical order does not
  assert.deepEqual(Object.keys({ '\ufffd': 1, '😀': 2 }).sort(), ['😀', '\ufffd']);
  assert.equal(B.canonicalJson({ '😀': 2, '\ufffd': 1 }), '{"\ufffd":1,"😀":2}');
  for (const bad of [1.5, 2 ** 53, NaN, undefined, () => 1, '\ud800']) {
    assert.throws(() => B.canonicalJson({ x: [bad] }), `${String(bad)}`);
  }
  assert.equal(B.canonicalJson(-0), '0');
});

test('bettor refs, as the vectors and the page give them', async () => {
  const r = V.bettor_refs;
  for (const c of r.cases) assert.equal(await B.bettorRef(r.ref_key, c.table_id, c.bettor_id), c.bettor_ref);
  const lines = pageBlocks()['bettor-ref'].split('\n').slice(1);
  assert.equal(lines.length, r.cases.length);
  for (const line of lines) {
    const [, table, bettor, ref] = line.match(/^(\S+), (.+) → (br_[a-z2-7]{24})$/);
    assert.equal(await B.bettorRef(r.ref_key, table, bettor), ref);
  }
});

test('the interventions line, as the page words it', () => {
  for (const c of V.interventions_text) assert.equal(B.interventionsText(c.interventions), c.text);
  const block = pageBlocks()['interventions-text'].split('\n');
  for (let i = 0; i < block.length; i += 2) {
    const iv = Object.fromEntries(block[i].split(', ').map((kvp) => {
      const [k, v] = kvp.split('=');
      return [k, JSON.parse(v)];
    }));
    assert.equal(`  → ${B.interventionsText(iv)}`, block[i + 1]);
  }
});

test('page split, hashes, key id and signature of the sample, as the page gives them', async () => {
  const header = B.headerOf(SAMPLE[0]);
  const rounds = SAMPLE.flatMap((p) => p.rounds);
  const split = B.splitPages(header, rounds, V.page_split.budget);
  assert.deepEqual(split.map((p) => p.map((r) => r.round_number)), V.page_split.pages);
  assert.equal(B.canonicalBytes({ ...header, rounds: [] }).length, V.page_split.header_bytes);
  assert.deepEqual(rounds.map((r) => B.canonicalBytes(r).length), V.page_split.round_bytes);
  assert.deepEqual(B.splitPages(header, []).map((p) => p.length), [0]);

  const sig = kv(pageBlocks().signature);
  assert.equal(await B.jwkThumbprint(KEY.public_jwk), sig.key_id);
  assert.equal(await B.pageHash(SAMPLE[0]), sig['page 1 sha256']);
  assert.equal(await B.pageHash(SAMPLE[1]), sig['page 2 sha256']);
  const manifest = SAMPLE[0].signature.manifest;
  assert.equal(B.canonicalJson(manifest), sig['signed bytes (292)']);
  const raw = B.fromBase64url(sig.value);
  assert.equal(B.toHex(raw), sig.r + sig.s);
  assert.equal(await B.verifyEs256(KEY.public_jwk, B.canonicalBytes(manifest), raw), true);
  raw[10] ^= 1;
  assert.equal(await B.verifyEs256(KEY.public_jwk, B.canonicalBytes(manifest), raw), false);
});

test('base64url is strict', () => {
  for (const bad of ['YQ==', 'a+b/', 'Y', 'YR']) assert.throws(() => B.fromBase64url(bad), bad);
  for (let n = 0; n < 70; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37) & 255);
    assert.deepEqual(B.fromBase64url(B.toBase64url(bytes)), bytes);
  }
});

test('voids at a player-banker table: the bettors priced, the player-banker apart', () => {
  // alice bets Player 5,000 against the player-banker pb in two voided rounds Player won:
  // 5,000 − 1% commission each for her, −5,000 each for pb, 50 each for the house.
  const voided = (n) => ({
    round_number: n, player_banker: { bettor_ref: 'pb' },
    void: { reason: 'misdeal', replaced: { nets: { alice: 4950, pb: -5000 }, house_take: 50 } },
  });
  const rounds = [voided(1), { round_number: 2, void: null }, voided(3)];
  const iv = B.interventionsOf('closed', rounds, 30);
  assert.equal(iv.voided_player_net, 9900);
  assert.equal(iv.voided_player_banker_net, -10000);
  assert.equal(B.interventionsText(iv),
    '2 voided rounds, players would have netted +9,900, the player-banker -10,000; closed early after round 3 of 30');
  // a house-banked round's nets are all the bettors'
  const house = B.interventionsOf('rules', [{ void: { replaced: { nets: { a: 100, b: -300 } } }, player_banker: null }], 1);
  assert.deepEqual([house.voided_player_net, house.voided_player_banker_net], [-200, 0]);
});

// ------------------------------------------------------------------------------------------------
// The signed sample

test('the signed two-page sample verifies, its interventions and refs shown', async () => {
  for (const doc of [pages(), { pages: pages() }, pages().reverse()]) {
    const report = await check(doc);
    assert.equal(report.verified, true, report.reason);
    assert.equal(report.interventionsLine, LINE);
    assert.equal(report.pages, 2);
    assert.equal(report.signature.key_id, KEY.public_jwk.kid);
    assert.match(report.reason, /signed by key \S+ of the test keys \(ES256, 2 pages\); table tbl_vector, shoe tbl_vector_s2 \(no shoe was named to check it against\)$/);
  }
  const report = await check(pages());
  assert.deepEqual(report.checks.map((c) => [c.id, c.ok]), [
    ['subject', null], ['signature', true], ['pages', true], ['spec', true], ['chain', true], ['client', true],
    ['rules', true], ['rounds', true], ['lifecycle', true], ['interventions', true],
    ['settlements', true], ['pay_table', true],
  ]);
  assert.deepEqual(report.bettors.map((b) => b.bettor_ref), V.bettor_refs.cases.slice(0, 3).map((c) => c.bettor_ref));
  assert.deepEqual(report.bettors.map((b) => b.voided_net), [-1300, 1980, -100]);
});

const set = (where, value) => (doc) => {
  let target = doc;
  for (const step of where.slice(0, -1)) target = target[step];
  const last = where[where.length - 1];
  target[last] = typeof value === 'function' ? value(target[last]) : value;
};
const flip = (text, i) => text.slice(0, i) + (text[i] === 'B' ? 'C' : 'B') + text.slice(i + 1);

const EDITS = {
  'end_reason': [set([0, 'end_reason'], 'rules'), /^page 1 was changed after it was signed: its SHA-256 is /],
  'a settlement line': [set([1, 'rounds', 0, 'settlement', 'lines', 1, 'net'], (n) => n + 1), /^page 2 was changed after it was signed/],
  'a timestamp': [set([1, 'rounds', 2, 'settled_at'], '2025-06-01T12:06:31.000Z'), /^page 2 was changed after it was signed/],
  "a round's card": [set([0, 'rounds', 1, 'player', 0], (c) => (c[0] === 'K' ? 'Q' : 'K') + c[1]), /^page 1 was changed after it was signed/],
  'a round removed': [(doc) => doc[1].rounds.pop(), /^page 2 was changed after it was signed/],
  "a void's note": [set([0, 'rounds', 2, 'void', 'note'], 'dealer error'), /^page 1 was changed after it was signed/],
  'the signature value': [(doc) => doc.forEach((p) => { p.signature.value = flip(p.signature.value, 20); }),
    /^signature: the ES256 signature does not verify over the manifest with key /],
  "the manifest's time": [(doc) => doc.forEach((p) => { p.signature.manifest.signed_at = '2025-06-01T13:00:01.000Z'; }),
    /^signature: the ES256 signature does not verify/],
  "one page's signature": [set([1, 'signature', 'value'], 'A'.repeat(86)), /^page 2 carries another signature than page 1$/],
  'a page missing': [(doc) => doc.pop(), /^page 2 of 2 is missing \(give every page, a bundle or the proof's URL\)$/],
  'the signature removed': [(doc) => doc.forEach((p) => delete p.signature), /^unsigned proof: it carries no signature/],
};

for (const [name, [edit, words]] of Object.entries(EDITS)) {
  test(`a changed byte fails with a clear reason: ${name}`, async () => {
    const doc = pages();
    edit(doc);
    const report = await check(doc);
    assert.equal(report.verified, false, name);
    assert.match(report.reason, words);
  });
}

test('keys: none, another key, a key set that lies about kid', async () => {
  assert.match((await Verify.verifyProof(pages())).reason, /^signature not checked: no signing keys/);
  const other = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const jwk = await crypto.subtle.exportKey('jwk', other.publicKey);
  const stranger = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  for (const keys of [{ keys: [stranger] }, { keys: [{ ...stranger, kid: KEY.public_jwk.kid }] }]) {
    const report = await Verify.verifyProof(pages(), { keys, keysSource: 'https://x.example/v1/signing-keys' });
    assert.equal(report.reason,
      `signature: key ${KEY.public_jwk.kid} is not among the signing keys of https://x.example/v1/signing-keys`);
  }
  const unsigned = pages().map((p) => { delete p.signature; return p; });
  const allowed = await Verify.verifyProof(unsigned, { allowUnsigned: true });
  assert.equal(allowed.verified, true, allowed.reason);
  assert.match(allowed.reason, /; unsigned; table tbl_vector, shoe tbl_vector_s2 \(no shoe was named to check it against\)$/);
});

// ------------------------------------------------------------------------------------------------
// Pages edited and signed again: a dishonest signer

async function resign(doc) {
  const priv = await crypto.subtle.importKey('jwk', { ...KEY.private_jwk, ext: true },
    { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const manifest = { ...doc[0].signature.manifest, pages: [] };
  for (const p of doc) manifest.pages.push(await B.pageHash(p));
  const value = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, priv,
    B.canonicalBytes(manifest)));
  const signature = { ...doc[0].signature, manifest, value: B.toBase64url(value) };
  return doc.map((p) => ({ ...p, signature }));
}

const LIES = {
  'bets locked after the deal': [set([0, 'rounds', 1, 'bets_locked_at'], '2025-06-01T12:02:10.000Z'),
    /^round 2: bets_locked_at 2025-06-01T12:02:10.000Z is not its dealt_at 2025-06-01T12:02:00.000Z \(bets are locked when the cards are dealt, never after\)$/],
  'the interventions': [(doc) => doc.forEach((p) => { p.interventions.voided_player_net = 0; }),
    /^shoe, interventions.voided_player_net: expected 580, found 0$/],
  'a void hidden as played to the end': [(doc) => doc.forEach((p) => { p.end_reason = 'rules'; }),
    /^round 7 is missing: by its rules the shoe deals 30 rounds/],
  'a round neither settled nor voided': [(doc) => Object.assign(doc[1].rounds[0], { settlement: null, settled_at: null }),
    /^round 4 is neither settled nor voided \(a final proof resolves every round\)$/],
  'settled before it was dealt': [set([1, 'rounds', 1, 'settled_at'], '2025-06-01T12:04:59.000Z'),
    /^round 5: settled_at 2025-06-01T12:04:59.000Z is before it was dealt/],
  'an unknown void reason': [set([0, 'rounds', 2, 'void', 'reason'], 'house lost'),
    /^round 3, void reason: expected one of misdeal, technical_fault, operator_error, regulatory, found house lost$/],
  'two headers': [set([1, 'client_seed'], 'other'), /^page 2's client_seed differs from page 1's/],
  'a broken link': [set([0, 'page', 'next'], 'https://elsewhere.example/proof?page=2'),
    /^page 1, page.next: expected \/v1\/shoes\/tbl_vector_s2\/proof\?page=2/],
};

for (const [name, [edit, words]] of Object.entries(LIES)) {
  test(`signed again, still caught: ${name}`, async () => {
    const doc = pages();
    edit(doc);
    const report = await check(await resign(doc));
    assert.equal(report.verified, false, name);
    assert.ok(report.checks.find((c) => c.id === 'signature').ok, 'the signature itself is valid');
    assert.match(report.reason, words);
  });
}

const AUTO = { committed_by: 'clock', committed_at: '2025-06-01T12:00:30.000Z', client_seed_given_at: '2025-06-01T11:00:00.000Z' };

test('a shoe the running table committed itself: the seed given before the commit, shown', async () => {
  const doc = pages();
  doc.forEach((p) => Object.assign(p, AUTO));
  const report = await check(await resign(doc));
  assert.equal(report.verified, true, report.reason);
  assert.ok(report.checks.find((c) => c.id === 'commit').ok);
  assert.equal(report.info.client_seed_given_at, AUTO.client_seed_given_at);
  assert.match(report.reason, /committed by the table itself at 2025-06-01T12:00:30.000Z with a client seed given in advance at 2025-06-01T11:00:00.000Z/);
  assert.equal((await check(pages())).checks.find((c) => c.id === 'commit'), undefined, 'an operator commit: no such check');
});

for (const [name, fields, words] of [
  ['a seed given after the commit', { client_seed_given_at: '2025-06-01T12:00:30.001Z' },
    /^automatic commit: the client seed was given at 2025-06-01T12:00:30.001Z, after the shoe was committed/],
  ['a commit after the first deal', { committed_at: '2025-06-01T13:00:00.000Z' },
    /^automatic commit, committed_at: expected not after round 1's dealt_at/],
  ['a commit field alone', { committed_by: undefined }, /^automatic commit, committed_by: expected present/],
]) {
  test(`signed again, still caught: ${name}`, async () => {
    const doc = pages();
    doc.forEach((p) => {
      Object.assign(p, AUTO, fields);
      for (const k of Object.keys(fields)) if (fields[k] === undefined) delete p[k];
    });
    const report = await check(await resign(doc));
    assert.equal(report.verified, false, name);
    assert.match(report.reason, words);
  });
}

test('a proof signed before the player-banker was priced apart (no voided_player_banker_net) still verifies', async () => {
  const doc = pages();
  doc.forEach((p) => { delete p.interventions.voided_player_banker_net; });
  const report = await check(await resign(doc));
  assert.equal(report.verified, true, report.reason);
  assert.equal(report.interventionsLine, LINE);
  doc.forEach((p) => { p.interventions.voided_player_net = 0; });
  const wrong = await check(await resign(doc));
  assert.equal(wrong.verified, false);
  assert.match(wrong.reason, /^shoe, interventions.voided_player_net: expected 580, found 0$/);
  // the earlier form netted the player-banker's replaced nets with the bettors'
  const recomputed = { voided_rounds: 2, voided_player_net: 9900, voided_player_banker_net: -10000 };
  assert.deepEqual(B.asClaimed(recomputed, { voided_player_net: -100 }), { voided_rounds: 2, voided_player_net: -100 });
  assert.deepEqual(B.asClaimed(recomputed, { voided_player_banker_net: -10000 }), recomputed);
});

test('loading: several files make one proof; a file without pages is named', () => {
  const texts = pages().map((p) => JSON.stringify(p));
  assert.equal(Verify.combineTexts(texts, ['a.json', 'b.json']).length, 2);
  assert.equal(Verify.combineTexts([JSON.stringify({ pages: pages() })], ['x']), JSON.stringify({ pages: pages() }));
  assert.throws(() => Verify.combineTexts([texts[0], '{"spec": 1}'], ['a.json', 'b.json']), /b.json holds no proof page/);
  assert.equal(Verify.isSigned(pages()), true);
  assert.equal(Verify.isSigned({ spec: 'bacc-pf-v1' }), false);
});

// ------------------------------------------------------------------------------------------------
// The proof is the shoe asked for

test("another table's clean signed proof is not the shoe asked for; table and shoe are named", async () => {
  const mine = await check(pages(), { shoeId: 'tbl_mine_s2' });
  assert.equal(mine.verified, false);
  assert.equal(mine.reason,
    'this is the proof of shoe tbl_vector_s2 (table tbl_vector), not of the shoe asked for, ' +
    'tbl_mine_s2: a proof verifies only the shoe it was signed for');
  assert.equal(mine.subject.words, 'table tbl_vector, shoe tbl_vector_s2 (not the shoe asked for)');
  assert.deepEqual(mine.checks[0], { id: 'subject', label: 'The shoe asked for', ok: false, detail: mine.mismatches[0].message });

  const asked = await check(pages(), { shoeId: 'tbl_vector_s2' });
  assert.equal(asked.verified, true, asked.reason);
  assert.match(asked.reason, /; table tbl_vector, shoe tbl_vector_s2 \(the shoe asked for\)$/);
  assert.equal(asked.subject.matches, true);
});

test('a signed header whose shoe id is not its table and number fails', async () => {
  const doc = pages();
  for (const p of doc) p.table_id = 'tbl_elsewhere';
  const report = await check(doc.map((p) => { const q = { ...p }; delete q.signature; return q; }), { allowUnsigned: true });
  assert.equal(report.verified, false);
  assert.match(report.mismatches[0].message, /^the proof's shoe_id tbl_vector_s2 is not shoe 2 of its table tbl_elsewhere/);
});

test('the shoe asked for is the id in the proof URL', () => {
  assert.equal(Verify.shoeOfUrl('https://api.example/v1/shoes/tbl_ab_s3/proof'), 'tbl_ab_s3');
  assert.equal(Verify.shoeOfUrl('https://api.example/v1/shoes/tbl_ab_s3/proof?page=2'), 'tbl_ab_s3');
  assert.equal(Verify.shoeOfUrl('https://api.example/proofs/x.json'), null);
  assert.equal(Verify.shoeOfUrl('data:application/json,{}'), null);
});

test('signing keys with a history: the key a proof names, valid when it signed', async () => {
  const at = SAMPLE[0].signature.manifest.signed_at; // 2025-06-01T13:00:00.000Z
  const other = { kty: 'EC', crv: 'P-256', x: KEY.public_jwk.y, y: KEY.public_jwk.x, kid: 'another',
    status: 'current', not_before: '2025-07-01T00:00:00.000Z', not_after: null };
  const retired = (lo, hi) => ({ keys: [{ ...KEY.public_jwk, status: 'retired', not_before: lo, not_after: hi }, other] });
  const ok = await check(pages(), { keys: retired('2025-01-01T00:00:00.000Z', '2025-06-30T00:00:00.000Z') });
  assert.equal(ok.verified, true, ok.reason);
  for (const [lo, hi] of [['2025-06-01T13:00:00.001Z', null], [null, '2025-06-01T12:59:59.999Z']]) {
    const late = await check(pages(), { keys: retired(lo, hi) });
    assert.equal(late.verified, false);
    assert.equal(late.reason, `signature: signed at ${at}, outside the validity of key ${KEY.public_jwk.kid} ` +
      `in the test keys (from ${lo || 'its start'} to ${hi || 'now'})`);
  }
});

test("an open shoe's proof URL says the shoe is open, with what is known", async () => {
  const details = { table_id: 'tbl_open', shoe_number: 1, rounds_dealt: 6, voided_rounds: 4,
    close_by: '2026-12-05T03:00:00.000Z' };
  const body = { error: { code: 'shoe_not_closed', message: 'shoe tbl_open_s1 is still open', retryable: true, details } };
  const saved = globalThis.fetch;
  globalThis.fetch = async () => new Response(JSON.stringify(body), { status: 409 });
  try {
    await assert.rejects(Verify.loadUrl('https://api.example/v1/shoes/tbl_open_s1/proof'), (err) => {
      assert.equal(err.message, 'HTTP 409: the shoe is still open (table tbl_open, shoe 1): 6 rounds dealt, ' +
        '4 voided so far; no proof until it ends — the service closes it by 2026-12-05T03:00:00.000Z ' +
        'at the latest if nothing more is dealt');
      return true;
    });
  } finally {
    globalThis.fetch = saved;
  }
});

// ------------------------------------------------------------------------------------------------
// Pay tables

test('the page knows every published pay table, and only those', () => {
  const pinned = read('tests/vectors/pay_tables.json');
  const known = Object.fromEntries(Object.entries(pinned.versions).map(([v, e]) => [v, e.sha256]));
  assert.deepEqual({ ...Verify.PAY_TABLES }, known);
});

test('a proof names its pay table: legacy is the first version, an unknown one fails', async () => {
  const legacy = await check(pages());
  assert.equal(legacy.info.pay_table, 'star-city@1');
  assert.match(legacy.checks.find((c) => c.id === 'pay_table').detail, /^star-city@1 \(named by no version/);
  for (const [version, ok] of [['star-city@1', true], ['star-city@2', false], ['bid-squeeze@1', false]]) {
    const doc = pages();
    for (const p of doc) p.table_config.pay_table = version;
    const report = await check(doc);
    const note = report.checks.find((c) => c.id === 'pay_table');
    assert.equal(note.ok, ok, version);
    if (!ok) assert.ok(report.mismatches.some((m) => m.field === 'table_config.pay_table'), version);
  }
});

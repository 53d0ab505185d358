// The browser verifier's check of a beacon round (docs/bacc-pf-v2.md; the Python twin is
// shared/baccarat_bls/verify.py over shared/baccarat/beacon.py): drand's
// bls-unchained-g1-rfc9380 — the signature a compressed G1 point (48 bytes), the chain's key a
// compressed G2 point (96 bytes), the message SHA-256 of the round as 8 bytes big-endian, hashed
// to G1 with the RFC 9380 DST below. Points must be canonical, in the subgroup and not the
// identity: a round's randomness is SHA-256 of the signature's bytes, so a second encoding of the
// same point must not pass. Built by esbuild into the classic script web/drand.js (make regen).
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { sha256 } from '@noble/hashes/sha2.js';

export const SCHEME = 'bls-unchained-g1-rfc9380';
export const DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_';
const ROUND_MAX = (1n << 64n) - 1n;

// drand quicknet, pinned (https://api.drand.sh/52db9ba7…/info); the test beacon is never it
export const QUICKNET = Object.freeze({
  name: 'quicknet',
  chain_hash: '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971',
  public_key:
    '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c' +
    '8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb' +
    '5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a',
  genesis_ms: 1692803367000,
  period_ms: 3000,
  is_test: false,
  scheme: SCHEME,
});

const HEX = /^[0-9a-f]*$/;

function fromHex(hex, size) {
  if (typeof hex !== 'string' || hex.length !== 2 * size || !HEX.test(hex)) return null;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function roundOf(round) {
  let r;
  if (typeof round === 'bigint') r = round;
  else if (typeof round === 'number' && Number.isSafeInteger(round)) r = BigInt(round);
  else if (typeof round === 'string' && /^(0|[1-9][0-9]{0,19})$/.test(round)) r = BigInt(round);
  else return null;
  return r >= 0n && r <= ROUND_MAX ? r : null;
}

// What the chain signs for a round: SHA-256 of the round, 8 bytes big-endian.
export function message(round) {
  const r = roundOf(round);
  if (r === null) throw new RangeError('a round is an unsigned 64-bit integer');
  const raw = new Uint8Array(8);
  new DataView(raw.buffer).setBigUint64(0, r, false);
  return sha256(raw);
}

// A round's randomness: SHA-256 of its signature (hex in, hex out).
export function randomness(signatureHex) {
  const sig = fromHex(signatureHex, 48);
  if (sig === null) throw new TypeError('a signature is 48 bytes of lower-case hex');
  return toHex(sha256(sig));
}

// The moment (ms) a round is due: genesis + (round - 1) × period.
export function roundTime(chain, round) {
  const r = roundOf(round);
  if (r === null || r < 1n) throw new RangeError('rounds are numbered from 1');
  return Number(BigInt(chain.genesis_ms) + (r - 1n) * BigInt(chain.period_ms));
}

function point(group, bytes) {
  const p = group.Point.fromBytes(bytes); // on the curve and in the subgroup, or throws
  p.assertValidity();
  if (p.is0() || toHex(p.toBytes(true)) !== toHex(bytes)) throw new Error('not canonical');
  return p;
}

// Whether `signatureHex` is the signature of `round` under `publicKeyHex`. Never throws.
export function verifySignature(publicKeyHex, round, signatureHex) {
  try {
    const key = fromHex(publicKeyHex, 96);
    const sig = fromHex(signatureHex, 48);
    if (key === null || sig === null) return false;
    const short = bls12_381.shortSignatures;
    const hashed = short.hash(message(round), DST);
    return short.verify(point(bls12_381.G1, sig), hashed, point(bls12_381.G2, key));
  } catch {
    return false;
  }
}

// Whether `beacon` ({chain_hash, round, signature, is_test}) is a round of `chain`
// ({chain_hash, public_key, is_test, scheme}): its hash and test flag are the chain's and its
// signature verifies under the chain's key.
export function verifyBeacon(chain, beacon) {
  if (!chain || !beacon) return false;
  if (beacon.chain_hash !== chain.chain_hash || Boolean(beacon.is_test) !== Boolean(chain.is_test)) {
    return false;
  }
  if ((chain.scheme || SCHEME) !== SCHEME) return false;
  return verifySignature(chain.public_key, beacon.round, beacon.signature);
}

// How a verifier names a chain: drand quicknet only when it is quicknet's hash and key.
export function describe(chain) {
  if (chain && chain.chain_hash === QUICKNET.chain_hash && chain.public_key === QUICKNET.public_key
      && !chain.is_test) {
    return 'drand quicknet';
  }
  return 'test beacon';
}

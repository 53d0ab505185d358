// verifyWebhookSignature: signatures a sender makes with WebCrypto (another HMAC implementation
// than the helper's node:crypto) verify; a changed body, timestamp or secret, a stale or future
// timestamp and a malformed header are refused with their reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookSignatureError,
  type WebhookSignatureFailure,
} from '../src/index.ts';

const SECRET = 'whsec_test_3f9a1c';
const BODY = '{"event_id":"evt_1","type":"round_settled","nets":{"alice":1881,"bob":-1000},"note":"Ünïcode ✓"}';
const T = 1_767_225_600; // 2026-01-01T00:00:00Z
const NOW = { now: T + 10 };

/** HMAC-SHA256(secret, "<t>.<body>") with WebCrypto, hex. */
async function webCryptoSignature(secret: string, t: number, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, enc.encode(`${t}.${body}`));
  return Buffer.from(mac).toString('hex');
}

function refusal(fn: () => unknown): WebhookSignatureFailure {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof WebhookSignatureError, String(e));
    return e.reason;
  }
  assert.fail('accepted');
}

test('a delivery signed by another HMAC implementation verifies, as a string or as bytes', async () => {
  const header = `t=${T},v1=${await webCryptoSignature(SECRET, T, BODY)}`;
  assert.deepEqual(verifyWebhookSignature(SECRET, header, BODY, NOW), { timestamp: T });
  assert.deepEqual(verifyWebhookSignature(SECRET, header, Buffer.from(BODY), NOW), { timestamp: T });
  assert.deepEqual(verifyWebhookSignature(Buffer.from(SECRET), ` t=${T} , v1=${header.slice(-64).toUpperCase()}`, BODY, NOW), {
    timestamp: T,
  });
  assert.equal(signWebhookPayload(SECRET, BODY, T), header);
});

test('a changed body, timestamp or secret is a signature_mismatch', async () => {
  const v1 = await webCryptoSignature(SECRET, T, BODY);
  const header = `t=${T},v1=${v1}`;
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, header, BODY.replace('1881', '1882'), NOW)), 'signature_mismatch');
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, header, `${BODY}\n`, NOW)), 'signature_mismatch');
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, `t=${T + 1},v1=${v1}`, BODY, NOW)), 'signature_mismatch');
  assert.equal(refusal(() => verifyWebhookSignature('whsec_other', header, BODY, NOW)), 'signature_mismatch');
  const flipped = v1.slice(0, 63) + (v1[63] === '0' ? '1' : '0');
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, `t=${T},v1=${flipped}`, BODY, NOW)), 'signature_mismatch');
});

test('one matching v1 among several is enough (a secret being rotated); other schemes are skipped', async () => {
  const good = await webCryptoSignature(SECRET, T, BODY);
  const old = await webCryptoSignature('whsec_old', T, BODY);
  assert.ok(verifyWebhookSignature(SECRET, `t=${T},v1=${old},v1=${good}`, BODY, NOW));
  assert.ok(verifyWebhookSignature(SECRET, `t=${T},v0=abc,v1=${good}`, BODY, NOW));
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, `t=${T},v1=${old},v1=${old}`, BODY, NOW)), 'signature_mismatch');
});

test('a timestamp outside the tolerance is refused, old or from the future', () => {
  const header = signWebhookPayload(SECRET, BODY, T);
  assert.ok(verifyWebhookSignature(SECRET, header, BODY, { now: T + 300 }));
  assert.ok(verifyWebhookSignature(SECRET, header, BODY, { now: T - 300 }));
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, header, BODY, { now: T + 301 })), 'timestamp_outside_tolerance');
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, header, BODY, { now: T - 301 })), 'timestamp_outside_tolerance');
  assert.ok(verifyWebhookSignature(SECRET, header, BODY, { now: T + 3000, toleranceSeconds: 3600 }));
  assert.equal(
    refusal(() => verifyWebhookSignature(SECRET, header, BODY, { now: T + 11, toleranceSeconds: 10 })),
    'timestamp_outside_tolerance',
  );
  // the default "now" is the clock
  assert.ok(verifyWebhookSignature(SECRET, signWebhookPayload(SECRET, BODY), BODY));
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, header, BODY)), 'timestamp_outside_tolerance');
});

test('a missing or malformed header is refused as such', () => {
  const v1 = signWebhookPayload(SECRET, BODY, T).split('v1=')[1];
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, undefined, BODY, NOW)), 'missing_header');
  assert.equal(refusal(() => verifyWebhookSignature(SECRET, ' ', BODY, NOW)), 'missing_header');
  for (const bad of [
    'garbage',
    `v1=${v1}`,
    `t=${T}`,
    `t=abc,v1=${v1}`,
    `t=-5,v1=${v1}`,
    `t=${T},t=${T},v1=${v1}`,
    `t=${T},v1=${v1?.slice(2)}`,
    `t=${T},v1=${v1}zz`,
    `t=${T},,v1=${v1}`,
  ]) {
    assert.equal(refusal(() => verifyWebhookSignature(SECRET, bad, BODY, NOW)), 'malformed_header', bad);
  }
});

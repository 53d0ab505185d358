/**
 * A receiver of the API's webhook deliveries (docs/api.md), with nothing but
 * node:http: every delivery's Baccarat-Signature is checked on the raw body, a refused one answers
 * 400, a duplicate (the same event_id delivered again after a retry) is acknowledged and skipped.
 *
 *     WEBHOOK_SECRET=whsec_... npx tsx examples/webhook-receiver.ts [--port N]
 *
 * It prints one line per delivery (`accepted <event_id>`, `duplicate <event_id>`, `refused
 * <reason>`); the README's webhook snippet is the `[receive]` part below.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';

import { SIGNATURE_HEADER, verifyWebhookSignature, WebhookSignatureError } from '../src/index.ts';

// [receive]
const seen = new Set<string>(); // event_ids already applied (keep them in your database)

/** One delivery: its raw body and its Baccarat-Signature header → the HTTP status to answer. */
function receive(secret: string, rawBody: Buffer, signature: string | undefined): number {
  try {
    verifyWebhookSignature(secret, signature, rawBody, { toleranceSeconds: 300 });
  } catch (e) {
    if (e instanceof WebhookSignatureError) {
      console.log(`refused ${e.reason}`);
      return 400; // not from the API (or replayed, or changed): never apply it
    }
    throw e;
  }
  const event = JSON.parse(rawBody.toString('utf8')) as { event_id: string };
  if (seen.has(event.event_id)) {
    console.log(`duplicate ${event.event_id}`);
    return 200; // delivered again after a retry: already applied, acknowledge it
  }
  seen.add(event.event_id);
  console.log(`accepted ${event.event_id}`); // apply it here (e.g. a settlement's nets to wallets)
  return 200;
}
// [/receive]

const secret = process.env['WEBHOOK_SECRET'];
if (!secret) {
  console.error('webhook-receiver: set WEBHOOK_SECRET (the secret PUT /v1/webhook answered)');
  process.exit(2);
}
const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const header = req.headers[SIGNATURE_HEADER.toLowerCase()];
    try {
      res.statusCode = receive(secret, Buffer.concat(chunks), Array.isArray(header) ? header[0] : header);
    } catch (e) {
      console.log(`failed ${e instanceof Error ? e.message : String(e)}`);
      res.statusCode = 500; // the API retries it later
    }
    res.end();
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));

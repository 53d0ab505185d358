#!/usr/bin/env node
// Generates web/push.js (the table page's push client) from src/push.ts with esbuild: a classic
// script (IIFE) defining the global `BaccaratPush` — the pages inline classic scripts under a hash
// CSP — and, in Node, its module.exports (web/test/push.test.js requires it).
// `npm run build-push` (`make regen` runs it); `--out FILE` writes FILE instead (the staleness
// test builds into a temporary folder and compares with the committed file).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSync } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const SOURCE = path.resolve(here, '../src/push.ts');
const TARGET = path.resolve(here, '../../../web/push.js');

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = path.resolve(values.out ?? TARGET);
const result = buildSync({
  entryPoints: [SOURCE],
  bundle: true,
  format: 'iife',
  globalName: 'BaccaratPush',
  target: 'es2020',
  platform: 'browser',
  charset: 'utf8',
  legalComments: 'none',
  write: false,
  banner: {
    js:
      '// GENERATED from clients/typescript/src/push.ts by clients/typescript/scripts/build-push.mjs\n' +
      '// (esbuild; `make regen`): never edit it. The table push client (docs/api.md "Push"):\n' +
      '// BaccaratPush.subscribeTable(options) — see clients/typescript/README.md "Push".',
  },
  footer: {
    js: "if (typeof module === 'object' && module && typeof module.exports === 'object') module.exports = BaccaratPush;",
  },
});
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, result.outputFiles[0].text);
console.log(`generated ${path.relative(process.cwd(), out)} from ${path.relative(process.cwd(), SOURCE)}`);

#!/usr/bin/env node
// Generates src/generated/openapi.ts (the API's types) from docs/openapi.json with
// openapi-typescript: `npm run generate` (`make regen` runs it after `make openapi`).
// `--out FILE` writes FILE instead; `--in FILE` reads that document instead of docs/openapi.json
// (the drift test generates from the app's own document into a temporary folder and compares).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const SOURCE = path.resolve(here, '../../../docs/openapi.json');
const TARGET = path.resolve(here, '../src/generated/openapi.ts');

const { values } = parseArgs({ options: { in: { type: 'string' }, out: { type: 'string' } } });
const source = path.resolve(values.in ?? SOURCE);
const out = path.resolve(values.out ?? TARGET);
// defaultNonNullable: false — a field with a default is optional, as the API reads requests (else
// every request would have to send chain_length, settle_deadline_seconds …). Response fields with a
// default (auto_settled, voided) come out optional too, although the API always sends them.
const ast = await openapiTS(pathToFileURL(source), { silent: true, defaultNonNullable: false });
const text =
  COMMENT_HEADER +
  '// Source: docs/openapi.json. Regenerate with `npm run generate` in clients/typescript.\n\n' +
  astToString(ast);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, text);
console.log(`generated ${path.relative(process.cwd(), out)} from ${path.relative(process.cwd(), source)}`);

#!/usr/bin/env node
// Generates src/generated/openapi.ts (the API's types) from docs/openapi.json with
// openapi-typescript: `npm run generate`. `node scripts/generate.mjs --out FILE` writes FILE
// instead (the drift test regenerates into a temporary folder and compares).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const SOURCE = path.resolve(here, '../../../docs/openapi.json');
const TARGET = path.resolve(here, '../src/generated/openapi.ts');

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = path.resolve(values.out ?? TARGET);
// defaultNonNullable: false — a field with a default is optional, as the API reads requests (else
// every request would have to send chain_length, settle_deadline_seconds …). Response fields with a
// default (auto_settled, voided) come out optional too, although the API always sends them.
const ast = await openapiTS(pathToFileURL(SOURCE), { silent: true, defaultNonNullable: false });
const text =
  COMMENT_HEADER +
  '// Source: docs/openapi.json. Regenerate with `npm run generate` in clients/typescript.\n\n' +
  astToString(ast);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, text);
console.log(`generated ${path.relative(process.cwd(), out)} from docs/openapi.json`);

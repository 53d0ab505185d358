// The README's code is the examples' code: each block marked `<!-- excerpt: FILE [name] -->` must
// be, line for line, the part of FILE between `// [name]` and `// [/name]` (dedented). The
// examples themselves are type-checked (tsc) and run by make test (tests/live, tests/integration).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const HERE = path.join(import.meta.dirname, '..');
const readme = readFileSync(path.join(HERE, 'README.md'), 'utf8');

function region(file: string, name: string): string {
  const text = readFileSync(path.join(HERE, file), 'utf8');
  const m = text.match(new RegExp(`\\n([ \\t]*)// \\[${name}\\]\\n([\\s\\S]*?)\\n[ \\t]*// \\[/${name}\\]\\n`));
  assert.ok(m, `${file} has no [${name}] … [/${name}] region`);
  const indent = m[1]!.length;
  return m[2]!
    .split('\n')
    .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
    .join('\n');
}

const excerpts = [...readme.matchAll(/<!-- excerpt: (\S+) \[([\w-]+)\] -->\n```ts\n([\s\S]*?)\n```/g)];

test('the README quotes the examples exactly', () => {
  assert.ok(excerpts.length >= 3, `only ${excerpts.length} excerpts found`);
  for (const [, file, name, block] of excerpts) {
    assert.equal(block, region(file!, name!), `README.md's ${file} [${name}] is not the file's`);
  }
});

#!/usr/bin/env node
/*
 * Command line for the independent bacc-pf-v1 verifier.
 *
 *   node web/cli.js shoe --server-seed HEX --shoe-number I --client-seed TEXT \
 *        --decks D --burn 0|1 --cut-min A --cut-max B --round-limit R
 *       prints the derived shoe as JSON.
 *   node web/cli.js vector
 *       checks the known-answer vector of the spec; exit status 0 = all match, 1 = mismatch.
 *   node web/cli.js settle < cases.json
 *       settles each case {table_config, player, banker, bets, player_banker} of a JSON list with
 *       web/money.js and prints the list of settlements ({error} where one cannot be settled).
 */
'use strict';

const BaccPF = require('./bacc-pf-v1.js');
const BaccMoney = require('./money.js');

const USAGE = `usage:
  node web/cli.js shoe --server-seed HEX --shoe-number I --client-seed TEXT
                       --decks D --burn 0|1 --cut-min A --cut-max B --round-limit R
  node web/cli.js vector
  node web/cli.js settle < cases.json`;

const SHOE_OPTIONS = [
  'server-seed',
  'shoe-number',
  'client-seed',
  'decks',
  'burn',
  'cut-min',
  'cut-max',
  'round-limit',
];

/** Parses `--name value` and `--name=value` pairs; every option takes a value ("" allowed). */
function parseOptions(args, known) {
  const options = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument: ${arg}`);
    let name = arg.slice(2);
    let value;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    } else {
      if (i + 1 >= args.length) throw new Error(`--${name} needs a value`);
      value = args[++i];
    }
    if (!known.includes(name)) throw new Error(`unknown option: --${name}`);
    if (name in options) throw new Error(`--${name} given twice`);
    options[name] = value;
  }
  for (const name of known) {
    if (!(name in options)) throw new Error(`missing option: --${name}`);
  }
  return options;
}

function parseInteger(text, name) {
  if (!/^[0-9]+$/.test(text)) throw new Error(`--${name}: not a non-negative integer: ${text}`);
  return Number(text);
}

async function commandShoe(args) {
  const o = parseOptions(args, SHOE_OPTIONS);
  const shoe = await BaccPF.deriveShoe({
    server_seed: o['server-seed'],
    shoe_number: parseInteger(o['shoe-number'], 'shoe-number'),
    client_seed: o['client-seed'],
    rules: {
      decks: parseInteger(o.decks, 'decks'),
      burn: parseInteger(o.burn, 'burn'),
      cut_min: parseInteger(o['cut-min'], 'cut-min'),
      cut_max: parseInteger(o['cut-max'], 'cut-max'),
      round_limit: parseInteger(o['round-limit'], 'round-limit'),
    },
  });
  process.stdout.write(JSON.stringify(shoe) + '\n');
  return 0;
}

// The known-answer vector of docs/rules/fairness-v1.md (docs/bacc-pf-v1.md, "The specification's
// own vector").
const VECTOR = {
  chainPhrase: 'bacc-pf-v1 example chain secret - never use in production',
  s10: '0aee648d33179fe6a0b97141dc549e510444876e8065745709cca0bfb6edbd49',
  anchor: 'cdde3d9965e506c2da1abc8577df22cbd6776269c294cd943e87bb7d44781d9a',
  s1: 'bc0d405a0361266fe6e6cee0ed4d5370cb4dfecffac340c17ee0bf1aaf2aca7b',
  clientSeed: 'operator-7:table-12:shoe-seed',
  rules: { decks: 8, burn: 1, cut_min: 14, cut_max: 26, round_limit: 0 },
  clientHash: 'b8fbb059f1b0269d422b6b6e2a7b0b9b4f31e02ec402e85e0277549532dfcc1b',
  key: '3822612b8d050edcc8c4ed0bc6547eaad2a0e61aabbdec4de1d1f0a104ec61fe',
  block0: '2f702b340b6c94d287901f4baaf3f3fe7b4f70f01ad48951110dd5bd31b5b910',
  first12: 'AS 9C 8D 8D TD 6H QS QS 3H 5C 4S 6C',
  cutIndex: 393,
  burnExposed: 'AS',
  burn: 1,
  roundCount: 78,
  rounds: {
    1: { start: 2, player: '8D TD', pt: 8, banker: '8D 6H', bt: 4, result: 'player' },
    2: { start: 6, player: 'QS 3H 4S', pt: 7, banker: 'QS 5C 6C', bt: 1, result: 'player' },
    78: { start: 393, player: '4S 4H', pt: 8, banker: '7H 9S', bt: 6, result: 'player' },
  },
};

async function commandVector() {
  const V = VECTOR;
  let failures = 0;
  const check = (label, actual, expected) => {
    const ok = JSON.stringify(actual) === JSON.stringify(expected);
    if (!ok) failures++;
    const detail = ok ? '' : `\n    expected ${JSON.stringify(expected)}\n    got      ${JSON.stringify(actual)}`;
    process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail}\n`);
  };

  const s10 = BaccPF.toHex(await BaccPF.sha256(new TextEncoder().encode(V.chainPhrase)));
  check('s_10 = H(phrase)', s10, V.s10);
  check('s_0 = chain^10(s_10)', await BaccPF.chainWalk(V.s10, 10), V.anchor);
  check('s_1 = chain^9(s_10)', await BaccPF.chainWalk(V.s10, 9), V.s1);
  check('verifyLink(s_1, 1, anchor)', await BaccPF.verifyLink(V.s1, 1, V.anchor), true);
  check('verifyLink(s_10, 10, anchor)', await BaccPF.verifyLink(V.s10, 10, V.anchor), true);
  check('verifyLink(s_1, 2, anchor) is false', await BaccPF.verifyLink(V.s1, 2, V.anchor), false);
  check('client_hash', await BaccPF.clientHash(V.clientSeed), V.clientHash);
  check('K', await BaccPF.shoeKey(V.s1, V.clientHash, 1, V.rules), V.key);
  check('block_0', await BaccPF.streamBlock(V.key, 0), V.block0);

  const shoe = await BaccPF.deriveShoe({
    server_seed: V.s1,
    shoe_number: 1,
    client_seed: V.clientSeed,
    rules: V.rules,
  });
  check('derived client_hash', shoe.client_hash, V.clientHash);
  check('first 12 cards', shoe.cards.slice(0, 12).join(' '), V.first12);
  check('cut_index', shoe.cut_index, V.cutIndex);
  check('burn exposed', shoe.burn_exposed, V.burnExposed);
  check('cards burned', shoe.burn, V.burn);
  check('round count', shoe.rounds.length, V.roundCount);
  for (const [n, e] of Object.entries(V.rounds)) {
    const r = shoe.rounds[Number(n) - 1] || {};
    check(
      `round ${n}`,
      [r.round_number, r.start, (r.player || []).join(' '), r.player_total,
        (r.banker || []).join(' '), r.banker_total, r.result],
      [Number(n), e.start, e.player, e.pt, e.banker, e.bt, e.result],
    );
  }

  check('uniform limit(416)', BaccPF.uniformLimit(416), 4294967040);
  check('uniform [4294967039] mod 416', BaccPF.uniformFromWords([4294967039], 416), {
    value: 415,
    consumed: 1,
  });
  check('uniform [4294967040, 5] mod 416', BaccPF.uniformFromWords([4294967040, 5], 416), {
    value: 5,
    consumed: 2,
  });

  process.stdout.write(failures === 0 ? 'vector: all match\n' : `vector: ${failures} mismatch(es)\n`);
  return failures === 0 ? 0 : 1;
}

/** Each case of the JSON list on stdin settled by web/money.js, as a JSON list on stdout. */
async function commandSettle() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const cases = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const out = cases.map((c) => {
    try {
      const facts = BaccMoney.roundFacts(c.player, c.banker);
      return BaccMoney.settle(c.table_config, facts, c.bets, c.player_banker, c.id_field || 'bettor_ref');
    } catch (e) {
      if (!(e instanceof BaccMoney.MoneyError)) throw e;
      return { error: e.message };
    }
  });
  process.stdout.write(JSON.stringify(out) + '\n');
  return 0;
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'shoe') return commandShoe(rest);
  if (command === 'settle') {
    if (rest.length) throw new Error('settle takes no arguments');
    return commandSettle();
  }
  if (command === 'vector') {
    if (rest.length) throw new Error('vector takes no arguments');
    return commandVector();
  }
  process.stderr.write(USAGE + '\n');
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = 2;
  },
);

// The table page's drawing and calls under Node (web/table-render.js, web/table-actions.js,
// web/i18n.js): history beads and pair dots as seed 000 draws them, the balance a player sees,
// the squeeze, the areas by seed (大/小 closed after round 20), the labels in both languages.
// Run: node --test web/test/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const I18n = require('../i18n.js');
const R = require('../table-render.js');
const Actions = require('../table-actions.js');

/** A seeded linear congruential generator (Numerical Recipes' constants): reproducible runs. */
const rng = (seed) => {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
};

test('history beads: red banker, blue player, green tie; the winner\'s points, both on a tie; pair dots', () => {
  const beads = R.historyBeads([
    { round: 1, result: 'banker', player_total: 3, banker_total: 7, player_pair: false, banker_pair: true },
    { round: 2, result: 'player', player_total: 9, banker_total: 2, player_pair: true, banker_pair: false },
    { round: 3, result: 'tie', player_total: 6, banker_total: 6, player_pair: true, banker_pair: true },
  ]);
  assert.deepEqual(beads.map((b) => [b.colour, b.text, b.dots]), [
    ['red', '7', ['red']],
    ['blue', '9', ['blue']],
    ['green', '6·6', ['red', 'blue']],
  ]);
});

test('history beads: at most the last 30, in order, each result its colour (property)', () => {
  const next = rng(27);
  for (let run = 0; run < 200; run++) {
    const n = Math.floor(next() * 70);
    const history = Array.from({ length: n }, (_, i) => ({
      round: i + 1,
      result: ['banker', 'player', 'tie'][Math.floor(next() * 3)],
      player_total: Math.floor(next() * 10),
      banker_total: Math.floor(next() * 10),
      player_pair: next() < 0.1,
      banker_pair: next() < 0.1,
    }));
    const beads = R.historyBeads(history);
    assert.equal(beads.length, Math.min(30, n));
    beads.forEach((b, i) => {
      const h = history[n - beads.length + i];
      assert.equal(b.round, h.round);
      assert.equal(b.colour, { banker: 'red', player: 'blue', tie: 'green' }[h.result]);
      assert.equal(b.dots.includes('red'), h.banker_pair);
      assert.equal(b.dots.includes('blue'), h.player_pair);
      const shown = b.text.split('·').map(Number);
      if (h.result === 'tie') assert.deepEqual(shown, [h.player_total, h.banker_total]);
      else assert.deepEqual(shown, [h.result === 'banker' ? h.banker_total : h.player_total]);
    });
  }
});

test('the balance: the last report plus own nets settled after it, none past the snapshot drawn', () => {
  const nets = [{ seq: 10, net: 950 }, { seq: 20, net: -1000 }, { seq: 30, net: 500 }];
  assert.equal(R.displayBalance(50000, 5, nets, 25), 50000 + 950 - 1000); // 30 not drawn yet
  assert.equal(R.displayBalance(50000, 5, nets, 40), 50450);
  assert.equal(R.displayBalance(50950, 12, nets, 40), 50950 - 1000 + 500); // report at 12 holds 10
  assert.equal(R.displayBalance(null, 0, nets, 40), null); // a watcher holds nothing
  // property: a net is counted once, wherever the report and the snapshot fall
  const next = rng(7);
  for (let run = 0; run < 300; run++) {
    const list = Array.from({ length: 8 }, (_, i) => ({ seq: (i + 1) * 3, net: Math.floor(next() * 2001) - 1000 }));
    const report = Math.floor(next() * 30);
    const upTo = report + Math.floor(next() * 10);
    const start = 100000 + list.filter((n) => n.seq <= report).reduce((s, n) => s + n.net, 0);
    const want = 100000 + list.filter((n) => n.seq <= upTo).reduce((s, n) => s + n.net, 0);
    assert.equal(R.displayBalance(start, report, list, upTo), want);
  }
});

test('the squeeze: the counting step, its deadline, and the open button for its squeezer only', () => {
  const round = {
    squeeze: {
      steps: {
        initial: {
          status: 'squeezing', reveal_by: '2026-12-05T10:00:03.000Z',
          hands: { player: { squeezer: 'bob', opened: null }, banker: { squeezer: 'alice', opened: null } },
        },
        draws: { status: 'waiting', reveal_by: null, hands: {} },
      },
    },
  };
  const alice = R.squeezeView(round, 'alice');
  assert.equal(alice.step, 'initial');
  assert.equal(alice.revealBy, '2026-12-05T10:00:03.000Z');
  assert.equal(alice.mine, true);
  assert.deepEqual(alice.squeezers, { player: 'bob', banker: 'alice' });
  assert.equal(R.squeezeView(round, 'carol').mine, false);
  round.squeeze.steps.initial.hands.banker.opened = { by: 'alice', at: '…' };
  assert.equal(R.squeezeView(round, 'alice').mine, false); // opened: nothing left to open
  round.squeeze.steps.initial.status = 'revealed';
  assert.equal(R.squeezeView(round, 'alice'), null); // draws waiting: nothing counts down
  assert.equal(R.squeezeView({ squeeze: null }, 'alice'), null);
});

test('the countdown runs on the server\'s clock', () => {
  const deadline = '2026-12-05T10:00:10.000Z';
  const server = Date.parse('2026-12-05T10:00:04.000Z');
  assert.equal(R.secondsLeft(deadline, 0, server), 6);
  // this computer is 2.5 s behind the server: the offset puts it right
  assert.equal(R.secondsLeft(deadline, 2500, server - 2500), 6);
  assert.equal(R.secondsLeft(deadline, 0, server + 60000), 0);
  assert.equal(R.secondsLeft(null, 0, server), null);
});

test('the areas: 5 at star-city, 13 at bid-squeeze in the seeds\' order; 大/小 closed after round 20', () => {
  const limits = (ids) => ({ areas: Object.fromEntries(ids.map((id) => [id, { min: 100, max: 5000 }])) });
  const star = R.areasFor('star-city', limits(R.AREAS['star-city']), 1);
  assert.deepEqual(star.map((a) => I18n.t('zh', `area.${a.id}`, {}, 'star-city')), ['和', '莊一對', '閒一對', '莊', '閒']);
  const bid = (round) => R.areasFor('bid-squeeze', limits(R.AREAS['bid-squeeze']), round);
  assert.deepEqual(bid(1).map((a) => I18n.t('zh', `area.${a.id}`, {}, 'bid-squeeze')), [
    '免佣莊', '莊', '閒', '和', '莊對子', '閒對子', '大', '小', '幸運6', '任意對子', '完美對子', '閒龍寶', '莊龍寶',
  ]);
  const closed = (round) => bid(round).filter((a) => a.disabled).map((a) => a.id);
  assert.deepEqual(closed(20), []);
  assert.deepEqual(closed(21), ['big', 'small']);
  assert.equal(bid(1)[0].max, 5000);
});

test('chips and money: integer arithmetic, short faces for big chips', () => {
  assert.deepEqual([100, 1000, 2500, 10000, 100000].map((c) => R.chipLabel(c)), ['100', '1K', '2.5K', '10K', '100K']);
  assert.equal(R.money(123456), '123,456');
  assert.equal(R.money(-1100), '-1,100');
  assert.equal(R.money(5, 2), '0.05');
  assert.equal(R.money(123405, 2), '1,234.05');
  assert.deepEqual(R.draftBets({ player: 300, tie: 100, banker: 0 }, 'star-city'),
    [{ type: 'tie', amount: 100 }, { type: 'player', amount: 300 }]);
});

test('every label in both languages; the language from the link, else the browser', () => {
  for (const [key, entry] of Object.entries(I18n.LABELS)) {
    assert.ok(entry.zh && entry.en, key);
    assert.deepEqual(entry.zh.match(/\{\w+\}/g), entry.en.match(/\{\w+\}/g), key);
  }
  assert.equal(I18n.pickLang('zh', 'en-US'), 'zh');
  assert.equal(I18n.pickLang(null, 'zh-TW'), 'zh');
  assert.equal(I18n.pickLang('xx', 'fr'), 'en');
  assert.equal(I18n.t('en', 'seat', { n: 3 }), 'Seat 3');
  assert.equal(R.placeLabel('zh', 'seat 3'), '座位 3');
});

test('the calls: a token\'s table and person, the place a leave gives up, only an http(s) lobby', () => {
  const claims = { v: 1, tbl: 'tbl_x', sub: 'alice', role: 'seat', exp: 2 ** 31 };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  assert.deepEqual(Actions.claims(`bpt1.${payload}.mac`), claims);
  assert.equal(Actions.claims('bk_operator_key'), null);
  assert.equal(Actions.leavePath('seat 4', 'alice'), '/seats/4');
  assert.equal(Actions.leavePath('banker', 'alice'), '/banker');
  assert.equal(Actions.leavePath('spectator', 'a b'), '/spectators/a%20b');
  assert.equal(Actions.leavePath(null, 'alice'), null);
  const page = 'https://api.example/table';
  assert.equal(Actions.safeUrl('https://casino.example/lobby#x', page), 'https://casino.example/lobby#x');
  assert.equal(Actions.safeUrl('/lobby', page), 'https://api.example/lobby');
  for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,<b>x', 'http://[', '']) {
    assert.equal(Actions.safeUrl(bad, page), null, bad);
  }
});

test('an API error reaches the page with its code, never swallowed', async () => {
  const fetch = async () => ({
    ok: false, status: 422,
    text: async () => JSON.stringify({ error: { code: 'chat_text_invalid', message: 'no' } }),
  });
  const api = Actions.make({ api: 'http://x', tableId: 't', token: 'tok', me: 'alice', fetch });
  await assert.rejects(api.say('a\u202eb'), (err) => err.code === 'chat_text_invalid' && err.status === 422);
});

test('a bacc-pf-v2 table: the beacon round awaited (drand or the test beacon), then a beacon void', () => {
  const D = require('../drand.js');
  assert.equal(R.QUICKNET_CHAIN_HASH, D.QUICKNET.chain_hash); // the one drand's key signs
  const locked = (chain) => ({ fairness: 'bacc-pf-v2', round: null,
    locked: { round_number: 4, beacon: { chain_hash: chain, round: 28863, expected_at: '2026-01-01T00:00:03.000Z' } } });
  assert.equal(R.beaconInfo(locked(D.QUICKNET.chain_hash), 'en'), 'Waiting for drand round 28863');
  assert.equal(R.beaconInfo(locked(D.QUICKNET.chain_hash), 'zh'), '等待 drand 第 28863 輪');
  assert.equal(R.beaconInfo(locked('c9'.repeat(32)), 'en'), 'Waiting for test beacon round 28863');
  assert.equal(R.beaconInfo(locked('c9'.repeat(32)), 'zh'), '等待測試信標第 28863 輪');
  const voided = { fairness: 'bacc-pf-v2', locked: null, beacon_void: { round_number: 4, beacon_round: 28863 } };
  assert.equal(R.beaconInfo(voided, 'en'), 'Round 4 voided: beacon unavailable, stakes returned');
  assert.equal(R.beaconInfo({ fairness: 'bacc-pf-v1', locked: null }, 'en'), '');
  assert.equal(I18n.t('zh', 'phase.locked'), '注單已鎖定');
  // the countdown to the beacon round's time, on the server's clock
  assert.equal(R.secondsLeft('2026-01-01T00:00:03.000Z', 0, Date.parse('2026-01-01T00:00:00.500Z')), 3);
});

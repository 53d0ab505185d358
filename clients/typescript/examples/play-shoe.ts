/**
 * Play one whole shoe against the baccarat API from TypeScript, then verify its public proof with
 * the browser verifier's own JavaScript (web/verify.js, loaded in Node) — the TypeScript twin of
 * examples/play_shoe.py.
 *
 *     make run                                               # terminal 1: URL and key printed
 *     export BACCARAT_URL=http://127.0.0.1:8000 KEY=bk_...   # terminal 2
 *     cd clients/typescript && npm ci && npm run example     # or: npx tsx examples/play-shoe.ts --help
 *
 * It opens a table, commits a shoe with its own client seed, deals every round with bets from
 * several seats (locked with the round) and settles each (or voids it: --void-round N; or closes
 * the shoe early: --close-after N), keeping every bettor's balance from the nets. Then it loads the
 * proof like the verifier page does (GET /v1/shoes/{id}/proof, no key, every page followed),
 * verifies it with web/verify.js, checks that the cards and settlements it was answered during
 * play are the proof's, and prints a verdict line. Exit status 0 only when all of that holds.
 *
 * Every POST has its own Idempotency-Key, reused on its retries (src/retry.ts).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

import {
  BaccaratApiError,
  type BaccaratClient,
  BaccaratNetworkError,
  createBaccaratClient,
  type Schema,
  unwrap,
} from '../src/index.ts';

type Bet = Schema<'BetIn'>;
type Round = Schema<'RoundOut'>;
type Settlement = Schema<'SettlementOut'>;
type Profile = Schema<'CreateTableRequest'>['profile'];
type Banking = Schema<'CreateTableRequest'>['banking'];

// --- the browser verifier, as web/test/*.test.js load it ----------------------------------------

interface VerifierOptions {
  keys?: unknown; // a JWK set (GET /v1/signing-keys)
  keysSource?: string;
  shoeId?: string; // the shoe asked for: a proof of any other shoe or table fails
}
interface VerifiedRound {
  round_number: number;
  status: string;
  proof: {
    player: string[];
    banker: string[];
    result: string | null;
    settlement?: Pick<Settlement, 'lines' | 'house'> | null;
    voided: boolean;
  } | null;
}
interface VerifierReport {
  verified: boolean;
  verdict: 'verified' | 'NOT verified';
  reason: string;
  rounds: VerifiedRound[];
  interventionsLine: string | null;
}
interface BrowserVerifier {
  loadProofUrl(url: string): Promise<unknown>;
  verifyProof(proof: unknown, options: VerifierOptions): Promise<VerifierReport>;
}
const BaccVerify = createRequire(import.meta.url)('../../../web/verify.js') as BrowserVerifier;

/** How the proof is checked: its ES256 signature against the API's public keys (no key needed). */
async function verifierOptions(api: BaccaratClient, url: string): Promise<VerifierOptions> {
  return { keys: await unwrap(api.GET('/v1/signing-keys')), keysSource: `${url}/v1/signing-keys` };
}

// --- bets -------------------------------------------------------------------------------------

/** Bettors and their starting balances (minor units), as examples/play_shoe.py. */
const START_BALANCES: Record<string, number> = { alice: 150_000, bob: 120_000, carol: 90_000, dan: 200_000 };
const PLAYER_BANKER = 'banker-seat';
const PLAYER_BANKER_BALANCE = 10_000_000;

/** A small seeded generator (mulberry32), so that --rng-seed replays the same bets. */
function generator(seed: number): { int(lo: number, hi: number): number; chance(p: number): boolean; pick<T>(xs: readonly T[]): T } {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return { int, chance: (p) => next() < p, pick: (xs) => xs[int(0, xs.length - 1)]! };
}
type Rng = ReturnType<typeof generator>;

/** Star-city: four seats, Banker or Player each (never both), sometimes a Tie or a pair; in chip
 * units of 100 within the fun tier's limits. */
function starCityBets(rng: Rng, balances: Record<string, number>): Bet[] {
  const bets: Bet[] = [];
  Object.keys(START_BALANCES).forEach((bettor, i) => {
    const balance = balances[bettor]!;
    if (balance < 10_000) return; // well above the tier's minimum balance
    const common = { bettor_id: bettor, role: 'seated', seat: i + 1, balance } as const;
    bets.push({ ...common, type: rng.pick(['banker', 'player'] as const), amount: 100 * rng.int(5, 40) });
    if (rng.chance(0.3)) {
      bets.push({ ...common, type: rng.pick(['tie', 'banker_pair', 'player_pair'] as const), amount: 100 * rng.int(1, 5) });
    }
  });
  return bets;
}

/** Bid-squeeze: three seats and a spectator, side bets; Big/Small only up to round 20. */
function bidSqueezeBets(rng: Rng, balances: Record<string, number>, round: number): Bet[] {
  const bets: Bet[] = [];
  const sides = ['tie', 'lucky6', 'any_pair', ...(round <= 20 ? (['big', 'small'] as const) : [])] as const;
  ['alice', 'bob', 'carol'].forEach((bettor, i) => {
    const balance = balances[bettor]!;
    if (balance < 20_000) return;
    const common = { bettor_id: bettor, role: 'seated', seat: i + 1, balance, level: 3 } as const;
    bets.push({ ...common, type: rng.pick(['banker', 'player'] as const), amount: 1000 * rng.int(1, 5) });
    if (rng.chance(0.4)) bets.push({ ...common, type: rng.pick(sides), amount: 1000 * rng.int(1, 3) });
  });
  if (bets.length && balances['dan']! >= 20_000) {
    const type = rng.pick(['banker', 'player', 'banker_no_commission'] as const);
    bets.push({ bettor_id: 'dan', role: 'spectator', balance: balances['dan']!, type, amount: 1000 * rng.int(1, 3) });
  }
  return bets;
}

// --- the game ---------------------------------------------------------------------------------

interface Played {
  tableId: string;
  shoeId: string;
  rounds: Round[];
  settlements: Map<number, Settlement>;
  voids: Map<number, Settlement>;
  balances: Record<string, number>;
  houseTake: number;
  bets: number;
  endReason: string | null;
}

interface Game {
  profile: Profile;
  tier: string;
  banking: Banking;
  clientSeed: string;
  closeAfter: number | null;
  voidRounds: ReadonlySet<number>;
  rng: Rng;
  log: (line: string) => void;
}

/** A reveal refused because its step cannot be opened by its squeezer now: opened already, the
 * initial step not shown yet (a hand only the system opens), or its reveal_by passed. */
const NOT_NOW: ReadonlySet<string> = new Set(['already_revealed', 'reveal_out_of_order', 'reveal_deadline_passed']);

type Steps = Record<string, { hands?: Record<string, { squeezer?: string | null }> } | undefined>;

/**
 * Nothing of a round's outcome reaches the table before its cards are shown (docs/api.md
 * "Nothing of the outcome before the table shows it"): the squeezers open their cards — the
 * initial step, then the draws, the player's hand first. A hand only the system opens
 * (squeezer null) is shown at its step's reveal_by: until then the settlement answers the
 * retryable 409 cards_not_shown with Retry-After, which the client's retries wait out.
 */
async function revealAsSqueezers(api: BaccaratClient, dealt: Round): Promise<void> {
  const steps = ((dealt.squeeze as { steps?: Steps } | null)?.steps ?? {}) as Steps;
  for (const step of ['initial', 'draws'] as const) {
    for (const hand of ['player', 'banker']) {
      const squeezer = steps[step]?.hands?.[hand]?.squeezer;
      if (!squeezer) continue;
      try {
        await unwrap(
          api.POST('/v1/rounds/{round_id}/reveal', {
            params: { path: { round_id: dealt.round_id } },
            body: { bettor_id: squeezer, step },
          }),
        );
      } catch (e) {
        if (!(e instanceof BaccaratApiError) || !NOT_NOW.has(e.code ?? '')) throw e;
      }
    }
  }
}

/**
 * The presence a round is dealt with (seed 000 兩人成局: a seated bettor — and at a
 * player-banker table the player-banker too — or the deal is 409 company_required): the bettors
 * take their seats (bid-squeeze: alice, bob and carol, dan beside them as a spectator;
 * star-city: all four), the player-banker the banker seat.
 */
async function sitDown(api: BaccaratClient, tableId: string, profile: Profile, banking: Banking): Promise<void> {
  const seated = profile === 'star-city' ? Object.keys(START_BALANCES) : ['alice', 'bob', 'carol'];
  for (const [i, bettor] of seated.entries()) {
    const balance = START_BALANCES[bettor]!;
    await unwrap(
      api.PUT('/v1/tables/{table_id}/seats/{seat}', {
        params: { path: { table_id: tableId, seat: i + 1 } },
        body: { bettor_id: bettor, balance, ...(profile === 'bid-squeeze' ? { level: 3 } : {}) },
      }),
    );
  }
  if (profile === 'bid-squeeze') {
    await unwrap(
      api.PUT('/v1/tables/{table_id}/spectators/{bettor_id}', {
        params: { path: { table_id: tableId, bettor_id: 'dan' } },
        body: { balance: START_BALANCES['dan']! },
      }),
    );
  }
  if (banking === 'player_banker') {
    await unwrap(
      api.PUT('/v1/tables/{table_id}/banker', {
        params: { path: { table_id: tableId } },
        body: { bettor_id: PLAYER_BANKER, balance: PLAYER_BANKER_BALANCE },
      }),
    );
  }
}

async function play(api: BaccaratClient, game: Game): Promise<Played> {
  const { profile, tier, banking } = game;
  // [open]
  const table = await unwrap(api.POST('/v1/tables', { body: { profile, tier, banking } }));
  const shoe = await unwrap(
    api.POST('/v1/tables/{table_id}/shoes', {
      params: { path: { table_id: table.table_id } },
      body: { client_seed: game.clientSeed },
    }),
  );
  // [/open]
  await sitDown(api, table.table_id, profile, banking);
  game.log(`table ${table.table_id} (${profile}, ${tier}, ${banking}); anchor ${table.anchor.slice(0, 16)}…`);
  game.log(`shoe  ${shoe.shoe_id} committed: client hash ${shoe.client_hash.slice(0, 16)}…`);
  const shoeId = { path: { shoe_id: shoe.shoe_id } };
  const played: Played = {
    tableId: table.table_id,
    shoeId: shoe.shoe_id,
    rounds: [],
    settlements: new Map(),
    voids: new Map(),
    balances: { ...START_BALANCES, ...(banking === 'player_banker' ? { [PLAYER_BANKER]: PLAYER_BANKER_BALANCE } : {}) },
    houseTake: 0,
    bets: 0,
    endReason: null,
  };
  let status: 'open' | 'ended' = 'open';
  while (status === 'open') {
    const number = played.rounds.length + 1;
    const bets = profile === 'star-city' ? starCityBets(game.rng, played.balances) : bidSqueezeBets(game.rng, played.balances, number);
    const playerBanker = banking === 'player_banker' ? { bettor_id: PLAYER_BANKER, balance: played.balances[PLAYER_BANKER]! } : null;
    const answer = await unwrap(
      api.POST('/v1/shoes/{shoe_id}/rounds', { params: shoeId, body: { bets, player_banker: playerBanker } }),
    );
    // a bacc-pf-v2 table answers 202 with the round locked (its cards follow the beacon): this
    // example plays bacc-pf-v1 tables (examples/play_shoe.py --fairness bacc-pf-v2 plays v2)
    if (!('player' in answer)) throw new Error(`round ${answer.round_id} is ${answer.status}: a bacc-pf-v2 table`);
    const dealt = answer;
    played.rounds.push(dealt);
    played.bets += bets.length;
    status = dealt.shoe_status;
    const roundId = { path: { round_id: dealt.round_id } };
    if (game.voidRounds.has(dealt.round_number)) {
      // e.g. a misdeal: every stake goes back, the round keeps its cards in the proof
      const voided = await unwrap(api.POST('/v1/rounds/{round_id}/void', { params: roundId, body: { reason: 'misdeal' } }));
      played.voids.set(dealt.round_number, voided);
      game.log(`round ${String(dealt.round_number).padStart(2)}: voided, ${bets.length} stakes returned`);
    } else {
      // no body: the bets were locked with the deal (settled after the proof when it ended the
      // shoe) — and only once every card is shown: the squeezers open theirs first
      await revealAsSqueezers(api, dealt);
      const settlement = await unwrap(api.POST('/v1/rounds/{round_id}/settlement', { params: roundId }));
      played.settlements.set(dealt.round_number, settlement);
      for (const [bettor, net] of Object.entries(settlement.nets)) {
        if (bettor in played.balances) played.balances[bettor]! += net;
      }
      played.houseTake += settlement.house.take;
      game.log(
        `round ${String(dealt.round_number).padStart(2)}: ${dealt.player.cards.join(' ').padEnd(9)} vs ` +
          `${dealt.banker.cards.join(' ').padEnd(9)} ${dealt.result.padEnd(6)} ${bets.length} bets, ` +
          `house ${signed(settlement.house.take)}`,
      );
    }
    if (status === 'open' && game.closeAfter !== null && number >= game.closeAfter) {
      status = (await unwrap(api.POST('/v1/shoes/{shoe_id}/close', { params: shoeId }))).status;
    }
  }
  played.endReason = (await unwrap(api.GET('/v1/shoes/{shoe_id}', { params: shoeId }))).end_reason;
  return played;
}

/** What we were answered during play must be what the verified proof says: the cards, the
 * result, every settlement line's stake and net and the house's take, the voids. (Compared on
 * the verifier's rounds and without bettor ids, so that signed proofs, which name bettors by
 * reference, compare the same way.) */
function crossCheck(played: Played, report: VerifierReport): string[] {
  const problems: string[] = [];
  const inProof = report.rounds.filter((r) => r.proof !== null);
  if (inProof.length !== played.rounds.length) {
    problems.push(`the proof has ${inProof.length} rounds, we were dealt ${played.rounds.length}`);
  }
  const money = (s: Pick<Settlement, 'lines' | 'house'> | null | undefined): string =>
    s ? JSON.stringify([s.lines.map((l) => [l.index, l.type, l.stake, l.net]), s.house.take]) : 'none';
  for (const dealt of played.rounds) {
    const n = dealt.round_number;
    const r = report.rounds[n - 1]?.proof;
    if (!r) continue;
    if (JSON.stringify([r.player, r.banker, r.result]) !== JSON.stringify([dealt.player.cards, dealt.banker.cards, dealt.result])) {
      problems.push(`round ${n}: the proof's cards are not the ones we were dealt`);
    }
    if (r.voided !== played.voids.has(n)) problems.push(`round ${n}: the proof's void is not the one we were answered`);
    if (!played.voids.has(n) && money(r.settlement) !== money(played.settlements.get(n))) {
      problems.push(`round ${n}: the proof's settlement is not the one we were answered`);
    }
  }
  return problems;
}

const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

// --- main -------------------------------------------------------------------------------------

const USAGE = `usage: play-shoe.ts [--url URL] [--key KEY] [--profile star-city|bid-squeeze] [--tier TIER]
       [--banking house|player_banker] [--client-seed TEXT] [--close-after N] [--void-round N]...
       [--rng-seed N] [--save-proof FILE] [--summary-json FILE] [--quiet]
URL and key default to $BACCARAT_URL and $KEY (or $BACCARAT_KEY), as printed by \`make run\`.`;

async function main(argv: string[]): Promise<number> {
  const { values: a } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string', default: process.env['BACCARAT_URL'] ?? 'http://127.0.0.1:8000' },
      key: { type: 'string' },
      profile: { type: 'string', default: 'star-city' },
      tier: { type: 'string' },
      banking: { type: 'string', default: 'house' },
      'client-seed': { type: 'string' },
      'close-after': { type: 'string' },
      'void-round': { type: 'string', multiple: true, default: [] },
      'rng-seed': { type: 'string' },
      'save-proof': { type: 'string' },
      'summary-json': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const key = a.key ?? process.env['KEY'] ?? process.env['BACCARAT_KEY'];
  const profile = a.profile === 'bid-squeeze' ? 'bid-squeeze' : 'star-city';
  const banking = a.banking === 'player_banker' ? 'player_banker' : 'house';
  const integers = [a['close-after'], a['rng-seed'], ...a['void-round']].filter((v) => v !== undefined);
  if (a.help || !key || a.profile !== profile || a.banking !== banking || !integers.every((v) => /^\d+$/.test(v))) {
    console.error(key ? USAGE : `${USAGE}\nno operator key: pass --key or set KEY (the key \`make run\` printed)`);
    return a.help ? 0 : 2;
  }
  const url = a.url.replace(/\/+$/, '');
  const log = (line: string): void => {
    if (!a.quiet) console.log(line);
  };
  let retries = 0;
  // [client]
  const api = createBaccaratClient({
    baseUrl: url, // $BACCARAT_URL
    apiKey: key, // $KEY
    retry: { onRetry: (e) => (retries++, log(`  retry ${e.method} ${e.url}: ${e.code ?? e.status ?? 'no answer'}`)) },
  });
  // [/client]
  let played: Played;
  let report: VerifierReport;
  let proof: unknown;
  const proofUrl = (shoeId: string): string => `${url}/v1/shoes/${shoeId}/proof`;
  try {
    played = await play(api, {
      profile,
      tier: a.tier ?? (profile === 'star-city' ? 'star-city-fun' : 'bid-squeeze-standard'),
      banking,
      clientSeed: a['client-seed'] ?? `example:${crypto.randomUUID()}`,
      closeAfter: a['close-after'] === undefined ? null : Number(a['close-after']),
      voidRounds: new Set(a['void-round'].map(Number)),
      rng: generator(a['rng-seed'] === undefined ? (Math.random() * 2 ** 32) >>> 0 : Number(a['rng-seed'])),
      log,
    });
    proof = await BaccVerify.loadProofUrl(proofUrl(played.shoeId)); // no key: the proof is public
    report = await BaccVerify.verifyProof(proof, { ...(await verifierOptions(api, url)), shoeId: played.shoeId });
  } catch (e) {
    // [errors]
    if (e instanceof BaccaratApiError) {
      // e.status, e.code ("shoe_ended", "insufficient_balance" …), e.retryable, e.details, e.requestId
      console.error(`play-shoe: ${e.message}${e.requestId ? ` [request ${e.requestId}]` : ''}`);
      return 2;
    }
    if (e instanceof BaccaratNetworkError) {
      console.error(`play-shoe: ${e.message}`); // no answer after e.attempts attempts
      return 2;
    }
    throw e;
    // [/errors]
  }
  if (a['save-proof']) writeFileSync(a['save-proof'], JSON.stringify(proof, null, 1));
  const problems = crossCheck(played, report);
  const ok = report.verified && problems.length === 0;
  const nets = Object.fromEntries(Object.keys(START_BALANCES).map((b) => [b, played.balances[b]! - START_BALANCES[b]!]));
  console.log(
    `\nshoe ${played.shoeId}: ${played.rounds.length} rounds (ended: ${played.endReason}), ${played.bets} bets, ` +
      `${played.settlements.size} settlements, ${played.voids.size} voided, ${retries} retries`,
  );
  console.log(`nets  ${Object.entries(nets).map(([b, n]) => `${b} ${signed(n)}`).join('  ')}  house ${signed(played.houseTake)}`);
  console.log(`proof ${proofUrl(played.shoeId)}`);
  const verdict = `${report.verdict}: ${report.reason}`;
  console.log(`web/verify.js: ${verdict}`);
  if (report.interventionsLine) console.log(`interventions: ${report.interventionsLine}`);
  for (const problem of problems) console.log(`NOT consistent: ${problem}`);
  if (!problems.length) console.log('consistent: the cards we were dealt and the settlements we were answered are the proof\'s');
  if (a['summary-json']) {
    const summary = {
      table_id: played.tableId,
      shoe_id: played.shoeId,
      rounds: played.rounds.length,
      bets: played.bets,
      settlements: played.settlements.size,
      voided: [...played.voids.keys()],
      end_reason: played.endReason,
      nets,
      house_take: played.houseTake,
      retries,
      verified: report.verified,
      verdict,
      interventions: report.interventionsLine,
      consistent: problems.length === 0,
      problems,
    };
    writeFileSync(a['summary-json'], JSON.stringify(summary, null, 1));
  }
  return ok ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));

/**
 * A running table (`"dealing": "auto"`) integrated from docs/api.md alone: the operator creates a
 * bid-squeeze table that runs itself, gives it client seeds and seats two bettors; from then on
 * the bettors' frontend only follows the table feed (GET /v1/tables/{id}/events?after=), draws
 * the table from GET …/state, confirms a slip each time betting opens and squeezes for one bettor
 * only (alice, the Banker hand; bob never squeezes, so the system opens his Player hand at each
 * step's reveal_by). The operator pauses after round 3, resumes a few seconds later, and stops
 * (pauses) after round 5. It prints what a frontend would render at each event and counts the
 * requests of each role.
 *
 *     make run                                               # terminal 1: URL and key printed
 *     export BACCARAT_URL=http://127.0.0.1:8000 KEY=bk_...   # terminal 2
 *     cd clients/typescript && npx tsx examples/running-table.ts [--summary-json FILE] [--quiet]
 *
 * Exit status 0 when five rounds were played and settled, 1 when the table did something the
 * docs say it does not (say a window opened while paused), 2 on an API error.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import {
  BaccaratApiError,
  type BaccaratClient,
  BaccaratNetworkError,
  createBaccaratClient,
  type Schema,
  unwrap,
} from '../src/index.ts';

type Event = Schema<'EventOut'>;
type State = Schema<'TableStateOut'>;
type Role = 'operator' | 'frontend';

const ROUNDS = 5;
const PAUSE_AFTER = 3;
const TIMINGS = { betting_seconds: 3, squeeze_seconds: 2, pause_seconds: 2 };
const HOLD_PAUSED_MS = 6_000; // longer than pause_seconds + betting_seconds: a window would show
const POLL_MS = 150;
const SQUEEZER = 'alice'; // the Banker hand's squeezer (largest Banker stake): she squeezes
const SILENT = 'bob'; // the Player hand's squeezer: he never does, the system opens it

interface RoundSeen {
  round_number: number;
  round_id: string | null;
  closes_at: string | null;
  dealt_at: string | null; // the round_dealt event's `at`
  dealt_lag_ms: number | null; // round_dealt.at − closes_at
  seen_lag_ms: number | null; // when this frontend saw round_dealt (local clock) − closes_at
  reveals: { step: string; by: string; hands: string[]; revealed_at: string }[];
  refused: string[]; // our reveals the API refused (their codes)
  result: string | null;
  nets: Record<string, number> | null;
  requests: Record<Role, number>; // from this round's window opening until the next's
}

interface Summary {
  table_id: string;
  rounds: RoundSeen[];
  paused_seq: number | null;
  resumed_seq: number | null;
  stopped_seq: number | null;
  opened_while_paused: number[];
  requests: Record<Role, number>;
  setup_requests: Record<Role, number>;
  routes: Record<string, number>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ms = (iso: string): number => Date.parse(iso);
const roundOf = (roundId: string): number => Number(roundId.slice(roundId.lastIndexOf('_r') + 2));

/** A fetch that counts each attempt per role and per route (the route's shape, ids elided). */
function countingFetch(role: Role, counts: Record<Role, number>, routes: Record<string, number>): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname.replace(/\/tbl_[a-z0-9_]+/g, '/{id}').replace(/\/v1\/tables\/\{id\}\/(seats|bets)\/[^/]+/, '/v1/tables/{id}/$1/{x}');
    counts[role] += 1;
    const name = `${role} ${request.method} ${path}`;
    routes[name] = (routes[name] ?? 0) + 1;
    return fetch(request);
  };
}

function countdown(state: State): string {
  const next = state.clock?.next;
  if (!next) return state.clock?.paused ? 'paused' : 'no step due';
  const seconds = (ms(next.due) - ms(state.at)) / 1000; // the server's clock: no skew
  return `${next.step} in ${seconds.toFixed(1)} s`;
}

/** What a frontend draws after a batch of events: phase, the clock's countdown, the round. */
function render(state: State): string {
  const round = state.round;
  const cards = (round?.cards ?? []).map((c) => `${c.hand[0]}${c.index}:${c.code ?? '??'}`).join(' ');
  const result = round?.result ? ` → ${round.result}` : '';
  const r = round ? ` round ${round.round_number} [${cards}]${result}` : '';
  return `    ↳ phase ${state.phase}, ${countdown(state)}${r}`;
}

async function main(argv: string[]): Promise<number> {
  const { values: a } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string', default: process.env['BACCARAT_URL'] ?? 'http://127.0.0.1:8000' },
      key: { type: 'string' },
      'summary-json': { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const key = a.key ?? process.env['KEY'] ?? process.env['BACCARAT_KEY'];
  if (!key) {
    console.error('running-table: no operator key: pass --key or set KEY (the key `make run` printed)');
    return 2;
  }
  const url = a.url.replace(/\/+$/, '');
  const log = (line: string): void => {
    if (!a.quiet) console.log(line);
  };
  const counts: Record<Role, number> = { operator: 0, frontend: 0 };
  const routes: Record<string, number> = {};
  const client = (role: Role): BaccaratClient =>
    createBaccaratClient({ baseUrl: url, apiKey: key, fetch: countingFetch(role, counts, routes) });
  const operator = client('operator');
  const frontend = client('frontend'); // the bettors' frontend (its backend holds the key)

  // --- the operator: a bid-squeeze table that runs itself, two seeds, two bettors ---------------
  const tiers = (await unwrap(operator.GET('/v1/tiers'))).tiers as Record<string, unknown>[];
  const tier = tiers.find((t) => t['profile'] === 'bid-squeeze');
  if (!tier) throw new Error('no bid-squeeze tier');
  const minBalance = Number(tier['bettor_min_balance'] ?? 0);
  const level = tier['seated_min_level'] == null ? null : Number(tier['seated_min_level']);
  const table = await unwrap(
    operator.POST('/v1/tables', {
      body: { profile: 'bid-squeeze', tier: String(tier['id']), banking: 'house', dealing: 'auto', ...TIMINGS },
    }),
  );
  const tableId = table.table_id;
  const path = { table_id: tableId };
  log(`table ${tableId}: ${table.profile} ${table.tier}, dealing ${table.dealing}, ${JSON.stringify(TIMINGS)}`);
  for (const seed of ['frontend example: shoe 1', 'frontend example: shoe 2']) {
    const given = await unwrap(operator.POST('/v1/tables/{table_id}/client-seeds', { params: { path }, body: { client_seed: seed } }));
    log(`client seed for shoe ${given.for_shoe_number}: ${given.client_hash.slice(0, 16)}… (${given.queued} queued)`);
  }
  const balance = Math.max(minBalance * 20, 100_000);
  for (const [seat, bettor] of [[1, SQUEEZER], [2, SILENT]] as const) {
    await unwrap(
      operator.PUT('/v1/tables/{table_id}/seats/{seat}', {
        params: { path: { table_id: tableId, seat } },
        body: { bettor_id: bettor, balance, level },
      }),
    );
  }
  const setup = { ...counts };

  // --- the frontend: follow the feed, draw the state, slips and squeezes -------------------------
  const rounds = new Map<number, RoundSeen>();
  const seen = (n: number): RoundSeen => {
    let r = rounds.get(n);
    if (!r) {
      r = { round_number: n, round_id: null, closes_at: null, dealt_at: null, dealt_lag_ms: null, seen_lag_ms: null,
        reveals: [], refused: [], result: null, nets: null, requests: { operator: 0, frontend: 0 } };
      rounds.set(n, r);
    }
    return r;
  };
  const summary: Summary = { table_id: tableId, rounds: [], paused_seq: null, resumed_seq: null, stopped_seq: null,
    opened_while_paused: [], requests: counts, setup_requests: setup, routes };
  let paused = false; // as the feed says (table_paused … table_resumed)
  let resumeAt: number | null = null; // when the operator resumes (local clock)
  let stopped = false;
  let current: RoundSeen | null = null; // the round whose window opened last: requests are booked to it
  let booked = { ...counts };
  const book = (): void => {
    if (current) {
      current.requests.operator += counts.operator - booked.operator;
      current.requests.frontend += counts.frontend - booked.frontend;
    }
    booked = { ...counts };
  };

  const reveal = async (r: RoundSeen, step: 'initial' | 'draws'): Promise<void> => {
    if (!r.round_id) return;
    try {
      await unwrap(frontend.POST('/v1/rounds/{round_id}/reveal', {
        params: { path: { round_id: r.round_id } }, body: { bettor_id: SQUEEZER, step },
      }));
      log(`  ${SQUEEZER} squeezes the ${step} cards of round ${r.round_number}`);
    } catch (e) {
      if (!(e instanceof BaccaratApiError) || e.status !== 409) throw e;
      r.refused.push(`${step}:${e.code}`); // e.g. too late: the system opened it first
      log(`  ${SQUEEZER}'s ${step} reveal refused: ${e.code}`);
    }
  };

  /** After the initial step is shown: alice opens her Banker third card if she has one to open. */
  const maybeSqueezeDraws = async (r: RoundSeen, state: State): Promise<void> => {
    const draws = state.round?.round_id === r.round_id ? state.round?.squeeze?.['steps'] : undefined;
    const step = (draws as Record<string, { status: string; hands: Record<string, { squeezer: string | null; opened: unknown }> }> | undefined)?.['draws'];
    const mine = step?.hands['banker'];
    const player = step?.hands['player'];
    if (step?.status === 'squeezing' && mine?.squeezer === SQUEEZER && !mine.opened && (!player || player.opened)) {
      await reveal(r, 'draws');
    }
  };

  let after = 0;
  let etag: string | null = null;
  for (;;) {
    if (resumeAt !== null && Date.now() >= resumeAt) {
      resumeAt = null;
      const clock = await unwrap(operator.POST('/v1/tables/{table_id}/resume', { params: { path } }));
      log(`operator resumes: next ${clock.next ? clock.next.step : 'none'}`);
    }
    const header: { 'if-none-match'?: string } = etag ? { 'if-none-match': etag } : {};
    const answer: { data?: Schema<'EventsPageOut'>; error?: unknown; response: Response } = await frontend.GET('/v1/tables/{table_id}/events', { params: { path, query: { after }, header } });
    const response: Response = answer.response;
    if (response.status === 304) {
      if (stopped && summary.stopped_seq !== null) break;
      await sleep(POLL_MS);
      continue;
    }
    const page = await unwrap(answer);
    etag = response.headers.get('etag');
    if (page.events.length === 0) {
      if (stopped && summary.stopped_seq !== null) break;
      await sleep(POLL_MS);
      continue;
    }
    const state = await unwrap(frontend.GET('/v1/tables/{table_id}/state', { params: { path } }));
    for (const e of page.events) {
      await onEvent(e, state);
    }
    log(render(state));
    after = page.next_after;
    if (stopped && summary.stopped_seq !== null && !page.more) break; // the stop is in the feed
  }
  book();

  async function onEvent(e: Event, state: State): Promise<void> {
    const d = e.data as Record<string, unknown>;
    const n = typeof d['round_number'] === 'number' ? d['round_number'] : typeof d['round_id'] === 'string' ? roundOf(d['round_id']) : null;
    log(`#${e.seq} ${e.at.slice(11, 23)} ${e.type}${n ? ` round ${n}` : ''}${d['by'] ? ` by ${String(d['by'])}` : ''}`);
    switch (e.type) {
      case 'betting_opened': {
        if (paused) summary.opened_while_paused.push(n ?? 0);
        if (n === null || n > ROUNDS || stopped) return;
        book();
        const r = seen(n);
        current = r;
        r.closes_at = String(d['closes_at']);
        for (const [bettor, type, amount] of [[SQUEEZER, 'banker', 2000], [SILENT, 'player', 1000]] as const) {
          await unwrap(frontend.PUT('/v1/tables/{table_id}/bets/{bettor_id}', {
            params: { path: { table_id: tableId, bettor_id: bettor } },
            body: { bets: [{ type, amount }], round_number: n },
          }));
        }
        log(`  slips confirmed for round ${n}: ${SQUEEZER} banker 2000, ${SILENT} player 1000 (closes ${r.closes_at.slice(11, 23)})`);
        return;
      }
      case 'round_dealt': {
        if (n === null || n > ROUNDS) return;
        const r = seen(n);
        r.round_id = String(d['round_id']);
        r.dealt_at = e.at;
        if (r.closes_at) {
          r.dealt_lag_ms = ms(e.at) - ms(r.closes_at);
          r.seen_lag_ms = Date.now() - ms(r.closes_at);
        }
        if (!stopped) await reveal(r, 'initial');
        return;
      }
      case 'squeeze_revealed': {
        if (n === null || n > ROUNDS) return;
        const r = seen(n);
        r.reveals.push({ step: String(d['step']), by: String(d['by']), hands: (d['hands'] as string[]) ?? [], revealed_at: String(d['revealed_at']) });
        if (d['step'] === 'initial' || d['by'] === 'system') await maybeSqueezeDraws(r, state);
        return;
      }
      case 'round_settled':
      case 'round_auto_settled': {
        if (n === null || n > ROUNDS) return;
        const r = seen(n);
        r.nets = d['nets'] as Record<string, number>;
        if (state.round?.round_number === n) r.result = state.round.result ?? null;
        log(`  round ${n} settled: ${r.result ?? '?'}, nets ${JSON.stringify(r.nets)}`);
        if (n === PAUSE_AFTER && !paused && summary.paused_seq === null) {
          await unwrap(operator.POST('/v1/tables/{table_id}/pause', { params: { path } }));
          resumeAt = Date.now() + HOLD_PAUSED_MS;
          log(`operator pauses after round ${n} for ${HOLD_PAUSED_MS / 1000} s`);
        }
        if (n === ROUNDS && !stopped) {
          book();
          current = null;
          await unwrap(operator.POST('/v1/tables/{table_id}/pause', { params: { path } }));
          stopped = true;
          log(`operator stops the table after round ${n}`);
        }
        return;
      }
      case 'table_paused':
        paused = true;
        if (summary.paused_seq === null) summary.paused_seq = e.seq;
        else summary.stopped_seq = e.seq;
        return;
      case 'table_resumed':
        paused = false;
        summary.resumed_seq = e.seq;
        return;
      default:
        return;
    }
  }

  summary.rounds = [...rounds.values()].sort((x, y) => x.round_number - y.round_number);
  const played = summary.rounds.filter((r) => r.nets !== null).length;
  const perRound = (role: Role): string => (summary.rounds.reduce((s, r) => s + r.requests[role], 0) / Math.max(played, 1)).toFixed(1);
  const lags = summary.rounds.map((r) => r.dealt_lag_ms).filter((x): x is number => x !== null);
  console.log(`rounds played: ${played} of ${ROUNDS}; windows opened while paused: ${summary.opened_while_paused.length}`);
  console.log(`requests: setup operator ${setup.operator}; per round operator ${perRound('operator')}, frontend ${perRound('frontend')}; total operator ${counts.operator}, frontend ${counts.frontend}`);
  console.log(`closes_at → round_dealt.at: ${lags.join(', ')} ms`);
  if (a['summary-json']) writeFileSync(a['summary-json'], JSON.stringify(summary, null, 2));
  return played === ROUNDS && summary.opened_while_paused.length === 0 ? 0 : 1;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  if (e instanceof BaccaratApiError || e instanceof BaccaratNetworkError) {
    console.error(`running-table: ${e.message}`);
    process.exitCode = 2;
  } else {
    throw e;
  }
}

// The table's push channel, followed the one way docs/api.md "Push" (the client algorithm) and
// docs/design/browsers.md §2 describe: `subscribeTable(options)` hands the page a snapshot, then
// every table event once, in seq order — whatever the socket does (repeats, losses, closes, ka
// silence, rotations, an expiring token).
//
// Written once: the browser's web/push.js is GENERATED from this file (esbuild, an IIFE defining
// the global `BaccaratPush`; `make regen`), so it is self-contained — no runtime import but its
// own push-wire.ts (types from push-types.ts), no Node API; the WebSocket constructor, fetch and
// the clock are injected (defaults: globalThis's).
import type {
  ChatPage,
  FeedPage,
  FreshToken,
  PushChatLine,
  PushFetch,
  PushMessage,
  PushSocket,
  PushSocketConstructor,
  PushStatus,
  SubscribeTableOptions,
  TableEvent,
  TableState,
  TableSubscription,
} from './push-types.ts';
import {
  CHAT_SEEN_MAX,
  CONNECT_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  headerProtocol,
  type HttpAnswer,
  httpGet,
  isFinal,
  OWN_BALANCE_EVENTS,
  POLL_ONLY_MS,
  PUSH_PROTOCOL,
  PushHttpError,
  PushRefusedError,
  pushBackoffMs,
  QUIET_POLL_MS,
  RESUME_MAX_EVENTS,
  STALE_STATE_RETRY_MS,
  systemClock,
  TOKEN_RENEW_BEFORE_MS,
  tokenExpiry,
} from './push-wire.ts';

export * from './push-wire.ts';
export type * from './push-types.ts';

type Why = 'start' | 'rotate' | 'token';

interface Connection {
  ws: PushSocket;
  /** the token the socket was opened with: a subscribe without its own is checked with it */
  token: string;
  timeoutMs: number;
  kaTimer: unknown;
  /** the subscription id whose data we apply */
  active: string | null;
  /** ids a renewal replaced: their data in flight still applies (an event published just
   * before the new one took effect is on the old one only, and may follow its success) */
  replaced: Set<string>;
  /** subscribe sent, not answered: id → why, and the channel it names */
  pending: Map<string, { why: Why; channel: string }>;
}

/** Follow one table: snapshot, then its events once each in order (docs/api.md "Push"). */
export function subscribeTable(options: SubscribeTableOptions): TableSubscription {
  const o = options;
  const clock = o.clock ?? systemClock;
  const random = o.random ?? Math.random;
  const Socket = o.WebSocket ?? (globalThis as unknown as { WebSocket: PushSocketConstructor }).WebSocket;
  const doFetch: PushFetch = o.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const base = `${o.api.replace(/\/+$/, '')}/v1/tables/${encodeURIComponent(o.tableId)}`;

  let token = o.token;
  let expiresAt: number | null = o.expiresAt ?? null;
  let pushUrl: string | null | undefined = o.pushUrl;
  let channel: string | undefined = o.channel;
  let channelFromState = false; // a refusal of a channel the state named is final
  let last: number | null = null;
  let you: string | null = null;
  let closed = false;
  let status: PushStatus | null = null;
  let attempt = 0;
  let subCounter = 0;
  let conn: Connection | null = null;
  let reconnectTimer: unknown = null;
  let quietTimer: unknown = null;
  let tokenTimer: unknown = null;
  let pollEtag: { after: number; etag: string } | null = null;
  let staleTimer: unknown = null;
  const chatSeen = new Set<string>();
  let work: Promise<void> = Promise.resolve();

  const safely = (fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      report(err);
    }
  };
  function report(err: unknown): void {
    if (o.onError) {
      try {
        o.onError(err);
      } catch {
        /* the page's own handler failed: nothing more to tell */
      }
    }
  }
  function setStatus(next: PushStatus, detail?: string): void {
    if (next === status && detail === undefined) return;
    status = next;
    safely(() => (detail === undefined ? o.onStatus?.(next) : o.onStatus?.(next, detail)));
  }
  function clear(timer: unknown): null {
    if (timer !== null) clock.clearTimeout(timer);
    return null;
  }

  /** One task at a time, in arrival order: what came while a task waited is its buffer. A task's
   * failure goes to `failed` (never a rejection). */
  function run(task: () => Promise<void>): Promise<void> {
    work = work
      .then(async () => {
        if (!closed) await task();
      })
      .catch(failed);
    return work;
  }

  function failed(err: unknown): void {
    if (closed) return;
    report(err);
    if (isFinal(err)) return finish(err instanceof PushHttpError ? (err.code ?? String(err.status)) : (err as PushRefusedError).kind);
    if (pushUrl === null) return armQuiet(POLL_ONLY_MS);
    drop();
    scheduleReconnect();
  }
  /** The end: `detail` says why, none when the page closed it. */
  function finish(detail?: string): void {
    if (closed) return;
    closed = true;
    reconnectTimer = clear(reconnectTimer);
    quietTimer = clear(quietTimer);
    tokenTimer = clear(tokenTimer);
    staleTimer = clear(staleTimer);
    drop(1000);
    setStatus('closed', detail);
  }

  // --- HTTP -------------------------------------------------------------------------------------
  const get = <T>(path: string, etag?: string): Promise<HttpAnswer<T>> => httpGet<T>(doFetch, base + path, token, etag);

  /** Read the state and hand it to the page — unless it is older than the events already applied
   * (a slow or stale answer: its `seq` below `last`): the page never goes back to it; the state
   * is read once more a little later (`retried`: this is that read). */
  async function snapshot(retried = false): Promise<void> {
    const { body } = await get<TableState>('/state');
    const state = body as TableState;
    if (last !== null && state.seq < last) {
      if (!retried && staleTimer === null && !closed) {
        staleTimer = clock.setTimeout(() => {
          staleTimer = null;
          void run(() => snapshot(true));
        }, STALE_STATE_RETRY_MS);
      }
      return;
    }
    pushUrl = state.push_url;
    last = state.seq;
    you = state.you?.bettor_id ?? null;
    channelFromState = true;
    safely(() => o.onSnapshot(state));
    if (channel !== undefined && state.push_channel !== channel && conn) resubscribe(state.push_channel, 'rotate');
    channel = state.push_channel;
  }

  /** Apply events (any order, repeats): those after `last`, contiguous, to the page. */
  function deliver(events: readonly TableEvent[]): boolean {
    const fresh: TableEvent[] = [];
    for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
      if (last === null || e.seq !== last + 1) continue;
      fresh.push(e);
      last = e.seq;
    }
    if (fresh.length) safely(() => o.onEvents(fresh));
    return you !== null && fresh.some((e) => OWN_BALANCE_EVENTS.has(e.type) && e.data['bettor_id'] === you);
  }

  /** `GET …/events?after=last` until `more` is false (or, `limit` given, one page: is there more?). */
  async function readFeed(pages = Infinity): Promise<{ more: boolean; own: boolean }> {
    let own = false;
    for (let n = 0; n < pages; n++) {
      const after = last ?? 0;
      const reuse = pollEtag && pollEtag.after === after ? pollEtag.etag : undefined;
      const page = await get<FeedPage>(`/events?after=${after}&limit=${RESUME_MAX_EVENTS}`, reuse);
      if (page.status === 304 || !page.body) return { more: false, own };
      if (page.etag) pollEtag = { after, etag: page.etag };
      if (n + 1 === pages && page.body.more) return { more: true, own };
      own = deliver(page.body.events) || own;
      if (!page.body.more) return { more: false, own };
    }
    return { more: false, own };
  }

  async function take(events: readonly TableEvent[]): Promise<void> {
    if (last === null) return;
    let own = false;
    const sorted = [...events].sort((a, b) => a.seq - b.seq);
    for (const e of sorted) {
      if (e.seq <= last) continue; // a repeat
      if (e.seq > last + 1) {
        setStatus('resyncing', 'gap');
        own = (await readFeed()).own || own;
        setStatus('live');
      }
      own = deliver([e]) || own;
    }
    if (own) await snapshot();
  }

  /** After a (re)subscription: the snapshot the first time, else the feed from `last`; the chat. */
  async function resume(why: 'start' | 'rotate' | 'token'): Promise<void> {
    if (why !== 'token') {
      if (last === null) await snapshot();
      else {
        if (status !== 'connecting') setStatus('resyncing', 'resume');
        const { more, own } = await readFeed(1);
        if (more || own) await snapshot(); // more than a page behind: a fresh snapshot
      }
      // what was said meanwhile (a reconnect, a rotation): chat has no seq; best-effort (reported)
      await readChat().catch((err: unknown) => (isFinal(err) ? Promise.reject(err) : report(err)));
    }
    attempt = 0;
    setStatus('live');
    armQuiet(QUIET_POLL_MS);
  }

  async function readChat(): Promise<void> {
    if (!o.onChat) return;
    const { body } = await get<ChatPage>('/chat');
    for (const m of body?.messages ?? []) chat(m);
  }
  function chat(m: PushChatLine): void {
    if (chatSeen.has(m.message_id)) return;
    chatSeen.add(m.message_id);
    if (chatSeen.size > CHAT_SEEN_MAX) chatSeen.delete(chatSeen.values().next().value as string);
    safely(() => o.onChat?.(m));
  }

  // --- timers -----------------------------------------------------------------------------------
  function armQuiet(ms: number): void {
    quietTimer = clear(quietTimer);
    if (closed) return;
    quietTimer = clock.setTimeout(() => {
      quietTimer = null;
      void run(async () => {
        const { own } = await readFeed();
        if (own) await snapshot();
        armQuiet(pushUrl === null ? POLL_ONLY_MS : QUIET_POLL_MS);
      });
    }, ms);
  }

  /** Renewal 60 s before `exp` (at once when already that close, unless it was just renewed:
   * a page answering a token as short-lived is not asked again and again); the close at `exp`. */
  function armToken(renewed = false): void {
    tokenTimer = clear(tokenTimer);
    if (expiresAt === null || closed) return;
    const endIn = expiresAt * 1000 - clock.now();
    const renewIn = endIn - TOKEN_RENEW_BEFORE_MS;
    if (!o.onTokenExpiring || (renewed && renewIn <= 0)) {
      tokenTimer = clock.setTimeout(() => finish('token_expired'), Math.max(0, endIn));
      return;
    }
    tokenTimer = clock.setTimeout(() => {
      tokenTimer = null;
      void renew();
    }, Math.max(0, renewIn));
  }

  async function renew(): Promise<void> {
    const deadline = expiresAt;
    try {
      const fresh = await (o.onTokenExpiring as () => Promise<FreshToken>)();
      if (closed) return;
      token = typeof fresh === 'string' ? fresh : fresh.token;
      expiresAt = tokenExpiry(fresh);
      pollEtag = null;
      if (conn && conn.active !== null && channel !== undefined) resubscribe(channel, 'token');
      armToken(true);
    } catch (err) {
      report(err);
      if (deadline !== null && !closed) {
        tokenTimer = clock.setTimeout(() => finish('token_expired'), Math.max(0, deadline * 1000 - clock.now()));
      }
    }
  }

  // --- the socket -------------------------------------------------------------------------------
  function send(c: Connection, msg: unknown): void {
    try {
      c.ws.send(JSON.stringify(msg));
    } catch (err) {
      report(err);
    }
  }

  /** Subscribe `c` to `to`: with the current token whenever the socket was opened with
   * another (a renewed one: the connection's may have expired since). */
  function subscribe(c: Connection, to: string, why: Why): void {
    const id = `s${++subCounter}`;
    c.pending.set(id, { why, channel: to });
    const msg: Record<string, unknown> = { type: 'subscribe', id, channel: to };
    if (why === 'token' || token !== c.token) msg['authorization'] = { Authorization: `Bearer ${token}` };
    send(c, msg);
  }

  function resubscribe(to: string, why: 'rotate' | 'token'): void {
    const c = conn;
    channel = to;
    if (!c) return;
    if (why === 'rotate') {
      if (c.active !== null) send(c, { type: 'unsubscribe', id: c.active });
      c.active = null;
      c.replaced.clear();
    }
    subscribe(c, to, why);
  }

  function drop(code = 4000): void {
    const c = conn;
    conn = null;
    if (!c) return;
    clear(c.kaTimer);
    c.ws.onopen = c.ws.onmessage = c.ws.onclose = c.ws.onerror = null;
    try {
      c.ws.close(code);
    } catch {
      /* already closing */
    }
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer !== null) return;
    quietTimer = clear(quietTimer);
    setStatus('reconnecting');
    reconnectTimer = clock.setTimeout(() => {
      reconnectTimer = null;
      begin();
    }, pushBackoffMs(attempt++, random));
  }

  function armKa(c: Connection): void {
    clear(c.kaTimer);
    c.kaTimer = clock.setTimeout(() => {
      if (conn !== c) return;
      report(new Error(`push: no ka for ${c.timeoutMs} ms`));
      drop();
      scheduleReconnect();
    }, c.timeoutMs);
  }

  function connect(): void {
    if (closed || !pushUrl || channel === undefined) return;
    if (status !== 'reconnecting') setStatus('connecting');
    let ws: PushSocket;
    try {
      ws = new Socket(pushUrl, [PUSH_PROTOCOL, headerProtocol(pushUrl, `Bearer ${token}`)]);
    } catch (err) {
      report(err);
      return scheduleReconnect();
    }
    const c: Connection = {
      ws, token, timeoutMs: CONNECT_TIMEOUT_MS, kaTimer: null, active: null, replaced: new Set(), pending: new Map(),
    };
    conn = c;
    armKa(c);
    ws.onopen = () => send(c, { type: 'connection_init' });
    ws.onclose = () => {
      if (conn !== c) return;
      conn = null;
      clear(c.kaTimer);
      scheduleReconnect();
    };
    ws.onerror = () => undefined; // a close follows
    ws.onmessage = (ev) => {
      if (conn !== c) return;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(String(ev.data)) as Record<string, unknown>;
      } catch (err) {
        return report(err);
      }
      armKa(c);
      frame(c, msg);
    };
  }

  function frame(c: Connection, msg: Record<string, unknown>): void {
    const id = typeof msg['id'] === 'string' ? msg['id'] : null;
    switch (msg['type']) {
      case 'connection_ack': {
        const t = msg['connectionTimeoutMs'];
        c.timeoutMs = typeof t === 'number' && t > 0 ? t : DEFAULT_TIMEOUT_MS;
        armKa(c);
        if (channel !== undefined) subscribe(c, channel, 'start');
        return;
      }
      case 'connection_error':
        return failed(new PushRefusedError('connection_refused', JSON.stringify(msg['errors'] ?? [])));
      case 'subscribe_success': {
        const sub = id === null ? undefined : c.pending.get(id);
        if (sub === undefined || id === null) return;
        c.pending.delete(id);
        if (sub.channel !== channel) {
          // answered after a rotation moved on (answers of two subscribes come in any order):
          // the channel it names has ended — never back to it
          send(c, { type: 'unsubscribe', id });
          return;
        }
        const before = c.active;
        c.active = id;
        if (before !== null && before !== id) {
          send(c, { type: 'unsubscribe', id: before }); // one per socket, whatever made `before`
          if (sub.why === 'token') c.replaced.add(before);
        }
        void run(() => resume(sub.why));
        return;
      }
      case 'subscribe_error': {
        const sub = id === null ? undefined : c.pending.get(id);
        if (sub === undefined || id === null) return;
        c.pending.delete(id);
        const refused = new PushRefusedError('subscribe_refused', JSON.stringify(msg['errors'] ?? []));
        if (sub.why === 'token' && c.active !== null) {
          // a renewal's: the subscription it would replace goes on (the channel does not end
          // an open one at exp; a revocation rotates it, and that rotation's subscribe decides)
          return report(refused);
        }
        if (sub.channel !== channel) return report(refused); // a rotation has moved on since
        if (channelFromState) return failed(refused);
        // the mint's channel may have rotated since: the state names the current one
        void run(async () => {
          const tried = channel;
          await snapshot();
          if (channel === tried) throw refused;
        });
        return;
      }
      case 'data': {
        if (id === null || (id !== c.active && !c.replaced.has(id))) return;
        let m: PushMessage;
        try {
          m = JSON.parse(String(msg['event'])) as PushMessage;
        } catch (err) {
          return report(err);
        }
        if (m.table_id !== o.tableId) return;
        if (m.type === 'events') {
          armQuiet(QUIET_POLL_MS);
          void run(() => take(m.events));
        } else if (m.type === 'chat') void run(async () => chat(m.message));
        else if (m.type === 'rotate') void run(async () => resubscribe(m.channel, 'rotate'));
        return;
      }
      default:
        return; // ka, unsubscribe_success, error: nothing to do (the ka timer was reset)
    }
  }

  // --- start ------------------------------------------------------------------------------------
  /** Connect; first read the state when the URL or the channel is not known yet. */
  function begin(): void {
    if (pushUrl && channel !== undefined) return connect();
    void run(async () => {
      await snapshot(); // learn the URL and the channel; the resume then reads the feed from it
      if (pushUrl === null) {
        await readChat();
        setStatus('live', 'poll');
        return armQuiet(POLL_ONLY_MS);
      }
      connect();
    });
  }

  setStatus('connecting');
  armToken();
  begin();

  return {
    close: () => finish(),
    lastSeq: () => last ?? 0,
    refresh: () => run(() => snapshot()),
  };
}

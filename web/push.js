// GENERATED from clients/typescript/src/push.ts by clients/typescript/scripts/build-push.mjs
// (esbuild; `make regen`): never edit it. The table push client (docs/api.md "Push"):
// BaccaratPush.subscribeTable(options) — see clients/typescript/README.md "Push".
"use strict";
var BaccaratPush = (() => {
  var __defProp = Object.defineProperty;
  var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
  var __getOwnPropNames = Object.getOwnPropertyNames;
  var __hasOwnProp = Object.prototype.hasOwnProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __export = (target, all) => {
    for (var name in all)
      __defProp(target, name, { get: all[name], enumerable: true });
  };
  var __copyProps = (to, from, except, desc) => {
    if (from && typeof from === "object" || typeof from === "function") {
      for (let key of __getOwnPropNames(from))
        if (!__hasOwnProp.call(to, key) && key !== except)
          __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
    }
    return to;
  };
  var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

  // src/push.ts
  var push_exports = {};
  __export(push_exports, {
    CHAT_SEEN_MAX: () => CHAT_SEEN_MAX,
    CONNECT_TIMEOUT_MS: () => CONNECT_TIMEOUT_MS,
    DEFAULT_TIMEOUT_MS: () => DEFAULT_TIMEOUT_MS,
    OWN_BALANCE_EVENTS: () => OWN_BALANCE_EVENTS,
    POLL_ONLY_MS: () => POLL_ONLY_MS,
    PUSH_PROTOCOL: () => PUSH_PROTOCOL,
    PushHttpError: () => PushHttpError,
    PushRefusedError: () => PushRefusedError,
    QUIET_POLL_MS: () => QUIET_POLL_MS,
    RESUME_MAX_EVENTS: () => RESUME_MAX_EVENTS,
    STALE_STATE_RETRY_MS: () => STALE_STATE_RETRY_MS,
    TOKEN_RENEW_BEFORE_MS: () => TOKEN_RENEW_BEFORE_MS,
    headerProtocol: () => headerProtocol,
    httpGet: () => httpGet,
    isFinal: () => isFinal,
    pushBackoffMs: () => pushBackoffMs,
    subscribeTable: () => subscribeTable,
    systemClock: () => systemClock,
    tokenExpiry: () => tokenExpiry
  });

  // src/push-wire.ts
  var PushHttpError = class extends Error {
    constructor(status, code, url) {
      super(`${status}${code ? ` ${code}` : ""} from ${url}`);
      __publicField(this, "status");
      __publicField(this, "code");
      this.name = "PushHttpError";
      this.status = status;
      this.code = code;
    }
  };
  var PushRefusedError = class extends Error {
    constructor(kind, message) {
      super(`${kind}: ${message}`);
      __publicField(this, "kind");
      this.name = "PushRefusedError";
      this.kind = kind;
    }
  };
  var DEFAULT_TIMEOUT_MS = 3e5;
  var CHAT_SEEN_MAX = 1e3;
  var OWN_BALANCE_EVENTS = /* @__PURE__ */ new Set(["seat_updated", "banker_updated", "spectator_updated"]);
  var STALE_STATE_RETRY_MS = 1e3;
  var systemClock = {
    now: () => Date.now(),
    setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
    clearTimeout: (h) => globalThis.clearTimeout(h)
  };
  function isFinal(err) {
    if (err instanceof PushRefusedError) return true;
    return err instanceof PushHttpError && [401, 403, 404].includes(err.status);
  }
  var PUSH_PROTOCOL = "aws-appsync-event-ws";
  var QUIET_POLL_MS = 3e4;
  var TOKEN_RENEW_BEFORE_MS = 6e4;
  var RESUME_MAX_EVENTS = 100;
  var POLL_ONLY_MS = 2e3;
  var CONNECT_TIMEOUT_MS = 3e4;
  function pushBackoffMs(attempt, random = Math.random) {
    const d = Math.min(3e4, 500 * 2 ** Math.min(attempt, 16));
    return Math.round(d / 2 + random() * d / 2);
  }
  function headerProtocol(pushUrl, authorization) {
    const host = new URL(pushUrl).host.replace("appsync-realtime-api", "appsync-api");
    const json = JSON.stringify({ host, Authorization: authorization });
    const bytes = new TextEncoder().encode(json);
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    return "header-" + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function tokenExpiry(fresh) {
    if (typeof fresh !== "string") {
      if (fresh.expiresAt !== void 0) return fresh.expiresAt;
      if (fresh.expires_at !== void 0) return Math.floor(Date.parse(fresh.expires_at) / 1e3);
      return tokenExpiry(fresh.token);
    }
    const part = fresh.startsWith("bpt1.") ? fresh.split(".")[1] : void 0;
    if (!part) return null;
    try {
      const claims = JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/")));
      return typeof claims.exp === "number" ? claims.exp : null;
    } catch {
      return null;
    }
  }
  async function httpGet(doFetch, url, token, etag) {
    const headers = { Authorization: `Bearer ${token}` };
    if (etag) headers["If-None-Match"] = etag;
    const r = await doFetch(url, { headers });
    if (r.status === 304) return { status: 304, body: null, etag: etag ?? null };
    if (!r.ok) {
      let code = null;
      try {
        code = (await r.json()).error?.code ?? null;
      } catch {
      }
      throw new PushHttpError(r.status, code, url);
    }
    return { status: r.status, body: await r.json(), etag: r.headers.get("etag") };
  }

  // src/push.ts
  function subscribeTable(options) {
    const o = options;
    const clock = o.clock ?? systemClock;
    const random = o.random ?? Math.random;
    const Socket = o.WebSocket ?? globalThis.WebSocket;
    const doFetch = o.fetch ?? ((url, init) => globalThis.fetch(url, init));
    const base = `${o.api.replace(/\/+$/, "")}/v1/tables/${encodeURIComponent(o.tableId)}`;
    let token = o.token;
    let expiresAt = o.expiresAt ?? null;
    let pushUrl = o.pushUrl;
    let channel = o.channel;
    let channelFromState = false;
    let last = null;
    let you = null;
    let closed = false;
    let status = null;
    let attempt = 0;
    let subCounter = 0;
    let conn = null;
    let reconnectTimer = null;
    let quietTimer = null;
    let tokenTimer = null;
    let pollEtag = null;
    let staleTimer = null;
    const chatSeen = /* @__PURE__ */ new Set();
    let work = Promise.resolve();
    const safely = (fn) => {
      try {
        fn();
      } catch (err) {
        report(err);
      }
    };
    function report(err) {
      if (o.onError) {
        try {
          o.onError(err);
        } catch {
        }
      }
    }
    function setStatus(next, detail) {
      if (next === status && detail === void 0) return;
      status = next;
      safely(() => detail === void 0 ? o.onStatus?.(next) : o.onStatus?.(next, detail));
    }
    function clear(timer) {
      if (timer !== null) clock.clearTimeout(timer);
      return null;
    }
    function run(task) {
      work = work.then(async () => {
        if (!closed) await task();
      }).catch(failed);
      return work;
    }
    function failed(err) {
      if (closed) return;
      report(err);
      if (isFinal(err)) return finish(err instanceof PushHttpError ? err.code ?? String(err.status) : err.kind);
      if (pushUrl === null) return armQuiet(POLL_ONLY_MS);
      drop();
      scheduleReconnect();
    }
    function finish(detail) {
      if (closed) return;
      closed = true;
      reconnectTimer = clear(reconnectTimer);
      quietTimer = clear(quietTimer);
      tokenTimer = clear(tokenTimer);
      staleTimer = clear(staleTimer);
      drop(1e3);
      setStatus("closed", detail);
    }
    const get = (path, etag) => httpGet(doFetch, base + path, token, etag);
    async function snapshot(retried = false) {
      const { body } = await get("/state");
      const state = body;
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
      if (channel !== void 0 && state.push_channel !== channel && conn) resubscribe(state.push_channel, "rotate");
      channel = state.push_channel;
    }
    function deliver(events) {
      const fresh = [];
      for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
        if (last === null || e.seq !== last + 1) continue;
        fresh.push(e);
        last = e.seq;
      }
      if (fresh.length) safely(() => o.onEvents(fresh));
      return you !== null && fresh.some((e) => OWN_BALANCE_EVENTS.has(e.type) && e.data["bettor_id"] === you);
    }
    async function readFeed(pages = Infinity) {
      let own = false;
      for (let n = 0; n < pages; n++) {
        const after = last ?? 0;
        const reuse = pollEtag && pollEtag.after === after ? pollEtag.etag : void 0;
        const page = await get(`/events?after=${after}&limit=${RESUME_MAX_EVENTS}`, reuse);
        if (page.status === 304 || !page.body) return { more: false, own };
        if (page.etag) pollEtag = { after, etag: page.etag };
        if (n + 1 === pages && page.body.more) return { more: true, own };
        own = deliver(page.body.events) || own;
        if (!page.body.more) return { more: false, own };
      }
      return { more: false, own };
    }
    async function take(events) {
      if (last === null) return;
      let own = false;
      const sorted = [...events].sort((a, b) => a.seq - b.seq);
      for (const e of sorted) {
        if (e.seq <= last) continue;
        if (e.seq > last + 1) {
          setStatus("resyncing", "gap");
          own = (await readFeed()).own || own;
          setStatus("live");
        }
        own = deliver([e]) || own;
      }
      if (own) await snapshot();
    }
    async function resume(why) {
      if (why !== "token") {
        if (last === null) await snapshot();
        else {
          if (status !== "connecting") setStatus("resyncing", "resume");
          const { more, own } = await readFeed(1);
          if (more || own) await snapshot();
        }
        await readChat().catch((err) => isFinal(err) ? Promise.reject(err) : report(err));
      }
      attempt = 0;
      setStatus("live");
      armQuiet(QUIET_POLL_MS);
    }
    async function readChat() {
      if (!o.onChat) return;
      const { body } = await get("/chat");
      for (const m of body?.messages ?? []) chat(m);
    }
    function chat(m) {
      if (chatSeen.has(m.message_id)) return;
      chatSeen.add(m.message_id);
      if (chatSeen.size > CHAT_SEEN_MAX) chatSeen.delete(chatSeen.values().next().value);
      safely(() => o.onChat?.(m));
    }
    function armQuiet(ms) {
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
    function armToken(renewed = false) {
      tokenTimer = clear(tokenTimer);
      if (expiresAt === null || closed) return;
      const endIn = expiresAt * 1e3 - clock.now();
      const renewIn = endIn - TOKEN_RENEW_BEFORE_MS;
      if (!o.onTokenExpiring || renewed && renewIn <= 0) {
        tokenTimer = clock.setTimeout(() => finish("token_expired"), Math.max(0, endIn));
        return;
      }
      tokenTimer = clock.setTimeout(() => {
        tokenTimer = null;
        void renew();
      }, Math.max(0, renewIn));
    }
    async function renew() {
      const deadline = expiresAt;
      try {
        const fresh = await o.onTokenExpiring();
        if (closed) return;
        token = typeof fresh === "string" ? fresh : fresh.token;
        expiresAt = tokenExpiry(fresh);
        pollEtag = null;
        if (conn && conn.active !== null && channel !== void 0) resubscribe(channel, "token");
        armToken(true);
      } catch (err) {
        report(err);
        if (deadline !== null && !closed) {
          tokenTimer = clock.setTimeout(() => finish("token_expired"), Math.max(0, deadline * 1e3 - clock.now()));
        }
      }
    }
    function send(c, msg) {
      try {
        c.ws.send(JSON.stringify(msg));
      } catch (err) {
        report(err);
      }
    }
    function subscribe(c, to, why) {
      const id = `s${++subCounter}`;
      c.pending.set(id, { why, channel: to });
      const msg = { type: "subscribe", id, channel: to };
      if (why === "token" || token !== c.token) msg["authorization"] = { Authorization: `Bearer ${token}` };
      send(c, msg);
    }
    function resubscribe(to, why) {
      const c = conn;
      channel = to;
      if (!c) return;
      if (why === "rotate") {
        if (c.active !== null) send(c, { type: "unsubscribe", id: c.active });
        c.active = null;
        c.replaced.clear();
      }
      subscribe(c, to, why);
    }
    function drop(code = 4e3) {
      const c = conn;
      conn = null;
      if (!c) return;
      clear(c.kaTimer);
      c.ws.onopen = c.ws.onmessage = c.ws.onclose = c.ws.onerror = null;
      try {
        c.ws.close(code);
      } catch {
      }
    }
    function scheduleReconnect() {
      if (closed || reconnectTimer !== null) return;
      quietTimer = clear(quietTimer);
      setStatus("reconnecting");
      reconnectTimer = clock.setTimeout(() => {
        reconnectTimer = null;
        begin();
      }, pushBackoffMs(attempt++, random));
    }
    function armKa(c) {
      clear(c.kaTimer);
      c.kaTimer = clock.setTimeout(() => {
        if (conn !== c) return;
        report(new Error(`push: no ka for ${c.timeoutMs} ms`));
        drop();
        scheduleReconnect();
      }, c.timeoutMs);
    }
    function connect() {
      if (closed || !pushUrl || channel === void 0) return;
      if (status !== "reconnecting") setStatus("connecting");
      let ws;
      try {
        ws = new Socket(pushUrl, [PUSH_PROTOCOL, headerProtocol(pushUrl, `Bearer ${token}`)]);
      } catch (err) {
        report(err);
        return scheduleReconnect();
      }
      const c = {
        ws,
        token,
        timeoutMs: CONNECT_TIMEOUT_MS,
        kaTimer: null,
        active: null,
        replaced: /* @__PURE__ */ new Set(),
        pending: /* @__PURE__ */ new Map()
      };
      conn = c;
      armKa(c);
      ws.onopen = () => send(c, { type: "connection_init" });
      ws.onclose = () => {
        if (conn !== c) return;
        conn = null;
        clear(c.kaTimer);
        scheduleReconnect();
      };
      ws.onerror = () => void 0;
      ws.onmessage = (ev) => {
        if (conn !== c) return;
        let msg;
        try {
          msg = JSON.parse(String(ev.data));
        } catch (err) {
          return report(err);
        }
        armKa(c);
        frame(c, msg);
      };
    }
    function frame(c, msg) {
      const id = typeof msg["id"] === "string" ? msg["id"] : null;
      switch (msg["type"]) {
        case "connection_ack": {
          const t = msg["connectionTimeoutMs"];
          c.timeoutMs = typeof t === "number" && t > 0 ? t : DEFAULT_TIMEOUT_MS;
          armKa(c);
          if (channel !== void 0) subscribe(c, channel, "start");
          return;
        }
        case "connection_error":
          return failed(new PushRefusedError("connection_refused", JSON.stringify(msg["errors"] ?? [])));
        case "subscribe_success": {
          const sub = id === null ? void 0 : c.pending.get(id);
          if (sub === void 0 || id === null) return;
          c.pending.delete(id);
          if (sub.channel !== channel) {
            send(c, { type: "unsubscribe", id });
            return;
          }
          const before = c.active;
          c.active = id;
          if (before !== null && before !== id) {
            send(c, { type: "unsubscribe", id: before });
            if (sub.why === "token") c.replaced.add(before);
          }
          void run(() => resume(sub.why));
          return;
        }
        case "subscribe_error": {
          const sub = id === null ? void 0 : c.pending.get(id);
          if (sub === void 0 || id === null) return;
          c.pending.delete(id);
          const refused = new PushRefusedError("subscribe_refused", JSON.stringify(msg["errors"] ?? []));
          if (sub.why === "token" && c.active !== null) {
            return report(refused);
          }
          if (sub.channel !== channel) return report(refused);
          if (channelFromState) return failed(refused);
          void run(async () => {
            const tried = channel;
            await snapshot();
            if (channel === tried) throw refused;
          });
          return;
        }
        case "data": {
          if (id === null || id !== c.active && !c.replaced.has(id)) return;
          let m;
          try {
            m = JSON.parse(String(msg["event"]));
          } catch (err) {
            return report(err);
          }
          if (m.table_id !== o.tableId) return;
          if (m.type === "events") {
            armQuiet(QUIET_POLL_MS);
            void run(() => take(m.events));
          } else if (m.type === "chat") void run(async () => chat(m.message));
          else if (m.type === "rotate") void run(async () => resubscribe(m.channel, "rotate"));
          return;
        }
        default:
          return;
      }
    }
    function begin() {
      if (pushUrl && channel !== void 0) return connect();
      void run(async () => {
        await snapshot();
        if (pushUrl === null) {
          await readChat();
          setStatus("live", "poll");
          return armQuiet(POLL_ONLY_MS);
        }
        connect();
      });
    }
    setStatus("connecting");
    armToken();
    begin();
    return {
      close: () => finish(),
      lastSeq: () => last ?? 0,
      refresh: () => run(() => snapshot())
    };
  }
  return __toCommonJS(push_exports);
})();
if (typeof module === 'object' && module && typeof module.exports === 'object') module.exports = BaccaratPush;

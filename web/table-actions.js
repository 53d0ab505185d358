/*
 * The table page's calls: the player routes (docs/api.md "Player tokens") with the player token,
 * nothing else. Each answers the body, or throws an Error whose `code` is the API's error code
 * (the page shows it: nothing is swallowed). A classic <script> (globalThis.BaccTableActions) or
 * a CommonJS module.
 */
(function (root) {
  'use strict';

  /** The token's claims (`tbl`, `sub`, `role`, `exp`): the page is this service's own, so it may
   * read the table and person its token names (integrators treat the token as opaque). */
  function claims(token) {
    const part = String(token || '').split('.')[1];
    if (!part) return null;
    try {
      const b64 = part.replace(/-/g, '+').replace(/_/g, '/');
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch (err) {
      return null;
    }
  }

  /** The lobby URL to go to on leaving, resolved against the page's: only http(s) (never a
   * `javascript:` or `data:` link someone slipped into the fragment); null otherwise. */
  function safeUrl(raw, base) {
    if (!raw) return null;
    try {
      const url = new URL(raw, base);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch (err) {
      return null;
    }
  }

  /** The route that gives up a place ("seat 3", "banker", "spectator", "watcher"). */
  function leavePath(place, me) {
    if (!place) return null;
    const seat = /^seat (\d)$/.exec(place);
    if (seat) return `/seats/${seat[1]}`;
    if (place === 'banker') return '/banker';
    if (place === 'spectator') return `/spectators/${encodeURIComponent(me)}`;
    if (place === 'watcher') return `/watchers/${encodeURIComponent(me)}`;
    return null;
  }

  function make({ api, tableId, token, me, fetch = root.fetch.bind(root) }) {
    const table = `${api}/v1/tables/${encodeURIComponent(tableId)}`;
    const mine = encodeURIComponent(me);

    async function call(method, url, body) {
      const headers = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (method === 'POST') headers['idempotency-key'] = newKey();
      const r = await fetch(url, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      const data = text ? JSON.parse(text) : null;
      if (!r.ok) {
        const err = new Error((data && data.error && data.error.message) || String(r.status));
        err.code = (data && data.error && data.error.code) || `http_${r.status}`;
        err.status = r.status;
        throw err;
      }
      return data;
    }

    return {
      confirm: (roundNumber, bets) =>
        call('PUT', `${table}/bets/${mine}`, { round_number: roundNumber, bets }),
      cancel: () => call('DELETE', `${table}/bets/${mine}`),
      reveal: (roundId, step) =>
        call('POST', `${api}/v1/rounds/${encodeURIComponent(roundId)}/reveal`,
          { bettor_id: me, step }),
      urge: () => call('POST', `${table}/urge`, { bettor_id: me }),
      say: (text) => call('POST', `${table}/chat`, { text }),
      leave: (place) => {
        const path = leavePath(place, me);
        return path ? call('DELETE', `${table}${path}`) : Promise.resolve(null);
      },
      /** The table as the lobby lists it (number, name, tier, 倍率, limits, chips). */
      async info() {
        let after = null;
        for (;;) {
          const q = after ? `&after=${encodeURIComponent(after)}` : '';
          const page = await call('GET', `${api}/v1/tables?limit=50${q}`);
          const found = page.tables.find((t) => t.table_id === tableId);
          if (found || !page.next) return found || null;
          after = page.next;
        }
      },
    };
  }

  function newKey() {
    const c = root.crypto;
    if (c && typeof c.randomUUID === 'function') return c.randomUUID();
    return `k-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  }

  const api = Object.freeze({ claims, leavePath, safeUrl, make });
  root.BaccTableActions = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

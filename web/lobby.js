/*
 * The lobby page (GET /lobby): the operator's tables as GET /v1/tables lists them — number and
 * name (桌號), tier (倍率), limits, phase, seats, spectators and watchers, the last results.
 *
 * Reads `#token=<lobby token or operator key>&api=<API base URL>` from the fragment (never sent
 * to a server: it stays in the browser); `api` defaults to this page's origin. Every value from
 * the API is written with textContent: a table's name is text, never markup. No framework, no
 * import; the page refreshes every 5 s, one read at a time (each given up after 10 s), every page
 * shown (each page's ETag makes an unchanged one a 304).
 */
(function () {
  'use strict';

  const PHASES = {
    betting: 'Betting · 下注中', in_round: 'In round · 開牌中', idle: 'Idle · 等待',
    paused: 'Paused · 暫停', waiting: 'Waiting · 等待',
  };
  const REFRESH_MS = 5000;
  /** A read not answered by then is given up (a stalled connection would freeze the lobby). */
  const LOAD_TIMEOUT_MS = 10000;

  function params() {
    const out = new URLSearchParams(window.location.hash.replace(/^#/, ''));
    const api = (out.get('api') || window.location.origin).replace(/\/+$/, '');
    return { token: out.get('token') || '', api };
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function money(amount, exponent) {
    return exponent ? (amount / 10 ** exponent).toFixed(exponent) : String(amount);
  }

  function bead(entry) {
    const b = el('span', 'bead ' + entry.colour, entry.totals.join('·'));
    b.title = entry.result;
    for (const dot of entry.dots) b.appendChild(el('span', 'dot ' + dot));
    return b;
  }

  function card(t) {
    const box = el('article', 'table');
    box.dataset.tableId = t.table_id;
    const head = el('header');
    const title = el('div');
    title.appendChild(el('span', 'number', '#' + t.number));
    if (t.name !== null) title.appendChild(el('span', 'name', t.name));
    head.appendChild(title);
    head.appendChild(el('span', 'phase ' + t.phase, PHASES[t.phase] || t.phase));
    box.appendChild(head);
    const x = t.minor_unit_exponent;
    box.appendChild(el('div', 'meta',
      `${t.profile} · ${t.tier_name} ${t.tier_name_zh} · ${t.ratio} · ${t.currency}`));
    box.appendChild(el('div', 'meta',
      `bets ${money(t.limits.min_bet, x)}–${t.limits.table_max === null ? '∞' : money(t.limits.table_max, x)}` +
      ` · chips ${t.chips.map((c) => money(c, x)).join(' / ')}`));
    box.appendChild(el('div', 'meta',
      `seats ${t.seats_taken}/7` + (t.banking === 'player_banker' ? ` · banker ${t.banker ? '✓' : '—'}` : '') +
      ` · spectators ${t.spectators} · watchers ${t.watchers}`));
    if (t.shoe) {
      const left = t.shoe.cards_remaining === null ? '…' : t.shoe.cards_remaining;
      box.appendChild(el('div', 'meta',
        `shoe ${t.shoe.shoe_number} · round ${t.shoe.rounds_dealt} · cards left ${left}`));
      const history = el('div', 'history');
      for (const entry of t.shoe.history) history.appendChild(bead(entry));
      box.appendChild(history);
    }
    return box;
  }

  /**
   * What is shown: the pages read, in order, each `{after, etag, tables, next}`. One read at a
   * time: a refresh asked for while one is out (the 5 s timer on a slow network, a click) runs
   * after it, so an older answer never replaces a newer one. Each refresh reads again every page
   * the person asked for ("More tables" adds the next one, once however often it is clicked),
   * each with its own ETag (304: unchanged) — the pages after the first are never dropped, nor
   * left stale, when the first one changes.
   */
  const state = { pages: [], want: 1, running: null, again: false };

  async function load(after, etag) {
    const { token, api } = params();
    const url = `${api}/v1/tables?limit=50` + (after ? `&after=${encodeURIComponent(after)}` : '');
    const headers = { authorization: `Bearer ${token}` };
    if (etag) headers['if-none-match'] = etag;
    const abort = new AbortController();
    const timer = window.setTimeout(() => abort.abort(), LOAD_TIMEOUT_MS);
    try {
      const r = await fetch(url, { headers, signal: abort.signal });
      if (r.status === 304) return null;
      const body = await r.json();
      if (!r.ok) throw new Error((body.error && body.error.code) || String(r.status));
      return { after, etag: r.headers.get('etag'), tables: body.tables, next: body.next };
    } catch (err) {
      if (abort.signal.aborted) throw new Error(`no answer in ${LOAD_TIMEOUT_MS / 1000} s`);
      throw err;
    } finally {
      window.clearTimeout(timer);
    }
  }

  /** Every page asked for, from the first, then drawn at once (an error keeps what is shown). */
  async function readAll() {
    const pages = [];
    let after = null;
    while (pages.length < state.want) {
      const known = state.pages[pages.length];
      const same = known && known.after === after ? known : null;
      const page = (await load(after, same && same.etag)) || same;
      pages.push(page);
      if (page.next === null) break;
      after = page.next;
    }
    state.pages = pages;
    render();
  }

  function render() {
    const list = document.getElementById('tables');
    list.replaceChildren(...state.pages.flatMap((p) => p.tables).map(card));
    const status = document.getElementById('status');
    status.className = '';
    status.textContent = `${list.children.length} tables`;
    const last = state.pages[state.pages.length - 1];
    document.getElementById('more').hidden = !last || last.next === null;
  }

  function fail(err) {
    const status = document.getElementById('status');
    status.className = 'error';
    status.textContent = `The lobby could not be read: ${err.message}`;
  }

  function refresh() {
    if (state.running) {
      state.again = true;
      return state.running;
    }
    state.running = (async () => {
      do {
        state.again = false;
        try {
          await readAll();
        } catch (err) {
          fail(err);
        }
      } while (state.again);
      state.running = null;
    })();
    return state.running;
  }

  document.getElementById('more').addEventListener('click', () => {
    state.want = state.pages.length + 1; // the page after those shown, once
    refresh();
  });

  refresh();
  window.setInterval(refresh, REFRESH_MS);
})();

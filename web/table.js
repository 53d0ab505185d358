/*
 * The table page (GET /table): one person at one running table, in the seed's terms.
 *
 * `#token=<player token>&lang=zh|en&lobby=<lobby URL>` is read once, kept in memory and removed
 * from the address bar (history.replaceState): the fragment never reaches a server. The page
 * draws from the push channel alone (web/push.js: the state snapshot, the table's events in seq
 * order, chat lines; no /chat read of its own): each event moves the model (web/table-state.js);
 * the state is read again only for a snapshot (connect, resync), for the person's own balance
 * when the operator reports it (a balance is never in an event: their own place's event asks for
 * it) and, at a book table, for the crowd's counts (no events) every CROWD_MS. It calls only the
 * player routes (web/table-actions.js). Its own balance is the last one the operator reported
 * plus its own nets of rounds settled since: it moves once every card is shown, never before.
 */
(function () {
  'use strict';

  const I18n = window.BaccI18n;
  const R = window.BaccTableRender;
  const Model = window.BaccTableState;
  const Actions = window.BaccTableActions;
  const CROWD_MS = 30000;
  const REPORT_MS = 80;
  const OWN_REPORTS = new Set(['seat_taken', 'seat_updated', 'banker_taken', 'banker_updated',
    'spectator_joined', 'spectator_updated']);
  const SHOWN = new Set(['round_dealt', 'squeeze_revealed']); // they carry the round (events.SHOWN)
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text, attrs) => R.el(document, tag, cls, text, attrs);

  const S = {
    lang: 'en', token: '', lobby: null, api: '', tableId: '', me: '', role: '',
    info: null, state: null, offset: null, firstSeq: null,
    base: null, baseSeq: 0, nets: [], lastNet: null, systemReveals: 0,
    chip: null, draft: {}, draftRound: null, busy: false, saying: false, chat: Model.makeChat(), notice: '',
    sub: null, actions: null, crowdTimer: null, ownReports: 0, reportTimer: null,
  };
  const t = (key, args) => I18n.t(S.lang, key, args, S.state ? S.state.profile : null);

  // --- start -----------------------------------------------------------------------------------

  function readFragment() {
    const p = new URLSearchParams(window.location.hash.replace(/^#/, ''));
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    S.token = p.get('token') || '';
    S.lang = I18n.pickLang(p.get('lang'), navigator.language);
    S.api = (p.get('api') || window.location.origin).replace(/\/+$/, '');
    S.lobby = Actions.safeUrl(p.get('lobby'), window.location.href);
    const claims = Actions.claims(S.token) || {};
    S.tableId = p.get('table') || claims.tbl || '';
    S.me = claims.sub || '';
    S.role = claims.role || '';
    return claims;
  }

  function start() {
    const claims = readFragment();
    document.documentElement.lang = S.lang === 'zh' ? 'zh-Hant' : 'en';
    staticLabels();
    if (!S.token || !S.tableId) {
      showError({ code: 'no_token', message: t('no_token') });
      return;
    }
    S.actions = Actions.make({ api: S.api, tableId: S.tableId, token: S.token, me: S.me });
    S.actions.info().then((info) => { S.info = info; render(); }, showError);
    S.sub = window.BaccaratPush.subscribeTable({
      api: S.api, tableId: S.tableId, token: S.token, expiresAt: claims.exp,
      onSnapshot, onEvents, onChat: addChat, onStatus,
    });
    wire();
    window.setInterval(tick, 250);
  }

  function staticLabels() {
    const labels = {
      'leave': 'leave', 'cards-left-label': 'table.cards_remaining', 'urge': 'urge',
      'player-label': 'hand.player', 'banker-label': 'hand.banker', 'open': 'squeeze.open',
      'chips-label': 'chips', 'clear': 'clear', 'cancel': 'cancel', 'confirm': 'confirm',
      'balance-label': 'balance', 'history-label': 'history', 'big-road-label': 'big_road',
      'watchers-label': 'watchers', 'chat-label': 'chat', 'chat-send': 'chat.send',
    };
    for (const [id, key] of Object.entries(labels)) $(id).textContent = t(key);
    $('chat-input').placeholder = t('chat.placeholder');
    document.title = `${t('title')} · ${S.tableId}`;
  }

  // --- what the channel brings ------------------------------------------------------------------

  function onSnapshot(state) {
    S.state = Model.snapshot(S.state, state); // an own slip answered ahead of it stays
    clockSample(state.at);
    // the operator's report is in the snapshot when the balance it shows changed (its event
    // may never be delivered: the channel skips what a snapshot already holds); it includes
    // every own net settled up to then
    const balance = state.you ? state.you.balance : null;
    if (S.firstSeq === null || balance !== S.base) S.baseSeq = state.seq;
    if (S.firstSeq === null) S.firstSeq = state.seq;
    S.base = balance;
    crowdPolls(state);
    const window_ = state.book && state.book.betting;
    newWindow(window_ && window_.status === 'open' ? window_.round_number : null);
    staticLabels();
    render();
  }

  function onEvents(events) {
    for (const e of events) {
      S.state = Model.apply(S.state, e);
      clockSample(e.at);
      const d = e.data || {};
      if (OWN_REPORTS.has(e.type) && d.bettor_id === S.me) ownReport();
      // an event written before events carried the round (the deploy's moment): a snapshot
      if (SHOWN.has(e.type) && !d.round) snapshotSoon();
      if ((e.type === 'round_settled' || e.type === 'round_auto_settled') && d.nets &&
          S.me in d.nets) {
        S.nets.push({ seq: e.seq, net: d.nets[S.me] });
        S.lastNet = { seq: e.seq, net: d.nets[S.me] };
      } else if (e.type === 'squeeze_revealed') {
        if (d.by === 'system') S.systemReveals += 1;
        S.notice = d.by === 'system' ? t('squeeze.system') : t('squeeze.opened_by', { name: d.by });
      } else if (e.type === 'urge') {
        S.notice = t('urged', { name: d.bettor_id });
      } else if (e.type === 'chat_message_deleted') {
        if (S.chat.remove(d.message_id)) renderChat();
      } else if (e.type === 'betting_opened') {
        S.lastNet = null;
        newWindow(d.round_number);
      }
    }
    render();
  }

  /** The person's own balance, reported by the operator (their place's event says it changed;
   * the balance itself is only in their own state): one snapshot for a burst of them. */
  function ownReport() {
    S.ownReports += 1;
    snapshotSoon();
  }

  function snapshotSoon() {
    if (S.reportTimer !== null) return;
    S.reportTimer = window.setTimeout(() => {
      S.reportTimer = null;
      if (S.sub) S.sub.refresh();
    }, REPORT_MS);
  }

  /** The server clock's offset: each server time seen (a snapshot's `at`, an event's) was on
   * the server's clock no later than now, so offset ≥ at − now; the largest such bound is the
   * closest (a slow answer or a late delivery only gives a looser one). */
  function clockSample(at) {
    const bound = Date.parse(at) - Date.now();
    if (Number.isNaN(bound)) return;
    S.offset = S.offset === null ? bound : Math.max(S.offset, bound);
  }

  /** A new betting window: the draft of the last one is dropped. */
  function newWindow(round) {
    if (round === S.draftRound) return;
    S.draftRound = round;
    S.draft = {};
    S.notice = '';
  }

  /** At a book table the crowd is counted (no events move the counts): a snapshot every
   * CROWD_MS while the page is open; elsewhere events move everything the page draws. */
  function crowdPolls(state) {
    if (!state.crowd || S.crowdTimer !== null) return;
    S.crowdTimer = window.setInterval(() => { if (S.sub) S.sub.refresh(); }, CROWD_MS);
  }

  function onStatus(status, detail) {
    const node = $('push-status');
    node.dataset.status = status;
    node.textContent = t(`status.${status}`);
    if (detail && status === 'closed') showError(detail);
  }

  function addChat(message) {
    if (S.chat.add(message)) renderChat(); // once each; never one removed (a late read or push)
  }

  // --- what the person does ---------------------------------------------------------------------

  function wire() {
    $('areas').addEventListener('click', (ev) => {
      const area = ev.target.closest('.area');
      if (!area || area.disabled || !bettingOpen()) return;
      const id = area.dataset.area;
      S.draft[id] = (S.draft[id] || 0) + (S.chip || 0);
      render();
    });
    $('chips').addEventListener('click', (ev) => {
      const chip = ev.target.closest('.chip');
      if (!chip) return;
      S.chip = Number(chip.dataset.amount);
      render();
    });
    $('clear').addEventListener('click', () => { S.draft = {}; render(); });
    $('confirm').addEventListener('click', () => act(async () => {
      const bets = R.draftBets(S.draft, S.state.profile);
      const sent = S.state;
      takeBook(await S.actions.confirm(S.draftRound, bets), sent);
    }));
    $('cancel').addEventListener('click', () => act(async () => {
      const sent = S.state;
      const round = S.draftRound;
      takeBook(await S.actions.cancel(), sent);
      if (S.draftRound === round) S.draft = {}; // a draft of the next window, begun meanwhile, stays
    }));
    $('open').addEventListener('click', () => act(() => {
      const view = R.squeezeView(S.state.round, S.me);
      return S.actions.reveal(S.state.round.round_id, view.step);
    }));
    $('urge').addEventListener('click', () => act(() => S.actions.urge()));
    $('chat-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const input = $('chat-input');
      const text = input.value;
      if (!text) return;
      act(() => S.actions.say(text).then((m) => { // its own lane: never dropped for a confirm
        if (input.value === text) input.value = ''; // not what was typed since
        addChat(m);
      }), 'saying');
    });
    $('leave').addEventListener('click', () => act(leave));
  }

  /** The book a confirm or cancel answered (`sent`: the state shown at the call): the person's
   * own slip shows at once (its event follows) unless the events already moved past it; the
   * others' slips stay as the events drew them (web/table-state.js `answered`). */
  function takeBook(book, sent) {
    S.state = Model.answered(S.state, book, sent);
  }

  async function leave() {
    const you = S.state && S.state.you;
    await S.actions.leave(you ? you.place : null);
    S.sub.close();
    S.notice = t('left');
    render();
    if (S.lobby) window.location.assign(S.lobby);
  }

  /** One call at a time in its lane (`busy`: the table's buttons; `saying`: chat-send), disabled
   * meanwhile; the error's code shown, never swallowed, and cleared by the table's lane alone. */
  async function act(fn, lane = 'busy') {
    if (S[lane]) return;
    S[lane] = true;
    if (lane === 'busy') $('error').textContent = '';
    render();
    try {
      await fn();
    } catch (err) {
      showError(err);
    } finally {
      S[lane] = false;
      render();
    }
  }

  function showError(err) {
    const node = $('error');
    node.dataset.code = err.code || 'error';
    node.textContent = `${t('error', { code: err.code || 'error' })} — ${err.message || ''}`;
  }

  // --- drawing -----------------------------------------------------------------------------------

  /** Only a seated bettor or a spectator bets (the player-banker covers, a watcher watches). */
  function bettor() {
    const you = S.state && S.state.you;
    return Boolean(you && you.place && /^(seat \d|spectator)$/.test(you.place));
  }

  /** The window takes bets now (on the server's clock). */
  function windowOpen() {
    const s = S.state;
    if (!s || s.phase !== 'betting' || S.draftRound === null) return false;
    return R.secondsLeft(s.deadline, S.offset, Date.now()) > 0;
  }

  function bettingOpen() {
    return windowOpen() && bettor();
  }

  function shownPhase() {
    const s = S.state;
    if (!s) return 'idle';
    if (s.phase === 'betting' && !windowOpen()) return 'closed';
    return s.phase;
  }

  function render() {
    if (!S.state) return;
    const s = S.state;
    document.body.dataset.phase = shownPhase();
    document.body.dataset.round = s.round ? s.round.round_number : '';
    document.body.dataset.window = S.draftRound === null ? '' : S.draftRound;
    document.body.dataset.systemReveals = S.systemReveals;
    document.body.dataset.seq = s.seq;
    document.body.dataset.ownReports = S.ownReports;
    renderHeader();
    renderDealer();
    renderBoard();
    renderAreas();
    renderChips();
    renderSlipStatus();
    renderSeats();
    renderSide();
    tick();
  }

  function renderHeader() {
    const s = S.state;
    const info = S.info;
    const x = s.minor_unit_exponent;
    $('title').textContent = info
      ? t('table.number', { number: info.number }) + (info.name ? ` · ${info.name}` : '')
      : s.table_id;
    const tierName = info ? (S.lang === 'zh' && info.tier_name_zh) || info.tier_name : s.tier;
    $('tier').textContent = `${t(`profile.${s.profile}`)} · ${tierName}` +
      (info ? ` · ${t('table.ratio', { ratio: info.ratio })}` : '');
    $('limits').textContent = info ? t('table.limits', {
      min: R.money(info.limits.min_bet, x),
      max: info.limits.table_max === null ? '∞' : R.money(info.limits.table_max, x),
    }) : '';
    $('cards-left').textContent = s.shoe ? s.shoe.cards_remaining : '—';
  }

  function renderDealer() {
    const s = S.state;
    $('dealer-name').textContent = s.banking === 'player_banker'
      ? t('dealer.banker', { name: s.banker ? s.banker.bettor_id : t('seat.empty') })
      : t('dealer.house');
    $('urge').hidden = !(S.role === 'banker' && s.banking === 'player_banker');
  }

  function renderBoard() {
    const s = S.state;
    const phase = shownPhase();
    const showCards = s.round && ['squeeze', 'dealt', 'settled'].includes(phase);
    for (const hand of ['player', 'banker']) {
      const cards = showCards ? s.round.cards.filter((c) => c.hand === hand) : [];
      $(`${hand}-cards`).replaceChildren(...(cards.length
        ? cards.map((c) => R.cardNode(document, c, S.lang))
        : [el('div', 'slot'), el('div', 'slot')]));
    }
    $('phase').textContent = t(`phase.${phase}`);
    const result = showCards && s.round.result ? s.round.result : '';
    $('result').dataset.result = result;
    $('result').textContent = result ? t(`result.${result}`) : '';
    const view = phase === 'squeeze' ? R.squeezeView(s.round, S.me) : null;
    $('open').hidden = !(view && view.mine);
    $('open').disabled = S.busy;
    $('chat-send').disabled = S.saying; // a second line waits for the first's answer
    $('squeeze-info').textContent = view
      ? (view.mine ? t('squeeze.yours') : Object.entries(view.squeezers)
        .map(([hand, who]) => `${t(`hand.${hand}`)}: ${who || t('squeeze.system')}`).join(' · '))
      : R.beaconInfo(s, S.lang); // bacc-pf-v2: the beacon round awaited, or its void
    $('notice').textContent = S.notice;
  }

  function renderAreas() {
    const s = S.state;
    const box = $('areas');
    box.className = s.profile;
    const limits = S.info ? S.info.limits : null;
    const round = S.draftRound || (s.round ? s.round.round_number + 1 : 1);
    const open = bettingOpen();
    box.replaceChildren(...R.areasFor(s.profile, limits, round).map((a) => {
      const b = el('button', `area ${a.id}`, null, { type: 'button', 'data-area': a.id });
      b.disabled = a.disabled || !open;
      b.appendChild(el('span', 'label', t(`area.${a.id}`)));
      if (a.max !== null) {
        b.appendChild(el('span', 'lim',
          `${R.money(a.min, s.minor_unit_exponent)}–${R.money(a.max, s.minor_unit_exponent)}`));
      }
      b.appendChild(el('span', 'stake', S.draft[a.id] ? R.money(S.draft[a.id], s.minor_unit_exponent) : ''));
      return b;
    }));
  }

  function renderChips() {
    const chips = S.info ? S.info.chips : [];
    if (S.chip === null && chips.length) S.chip = chips[0];
    $('chips').replaceChildren(...chips.map((c) => {
      return el('button', `chip${c === S.chip ? ' selected' : ''}`,
        R.chipLabel(c, S.state.minor_unit_exponent),
        { type: 'button', 'data-amount': c, title: R.money(c, S.state.minor_unit_exponent) });
    }));
    const open = bettingOpen();
    $('confirm').disabled = !open || S.busy || !R.draftBets(S.draft, S.state.profile).length;
    $('cancel').disabled = !open || S.busy || !mySlip();
  }

  function mySlip() {
    const book = S.state.book;
    if (!book || !book.betting || book.betting.round_number !== S.draftRound) return null;
    const seat = Object.values(book.seats || {}).find((slip) => slip.bettor_id === S.me);
    return seat || (book.spectators || {})[S.me] || null;
  }

  function renderSlipStatus() {
    const node = $('slip-status');
    const slip = mySlip();
    const x = S.state.minor_unit_exponent;
    const draft = R.draftBets(S.draft, S.state.profile).reduce((sum, b) => sum + b.amount, 0);
    const same = slip && draft === slip.total;
    node.dataset.state = slip ? (same ? 'confirmed' : 'changed') : draft ? 'draft' : '';
    node.textContent = slip
      ? t('slip.confirmed', { total: R.money(slip.total, x) }) +
        (same ? '' : ` · ${t('slip.draft', { total: R.money(draft, x) })}`)
      : draft ? t('slip.draft', { total: R.money(draft, x) }) : '';
  }

  function renderSeats() {
    const s = S.state;
    const x = s.minor_unit_exponent;
    const slips = (s.book && s.book.seats) || {};
    const seats = [];
    for (let n = 1; n <= 7; n++) {
      const who = s.seats[n] || s.seats[String(n)];
      const box = el('div', `seat${who ? '' : ' empty'}${who && who.bettor_id === S.me ? ' mine' : ''}`,
        null, { 'data-seat': n });
      box.appendChild(el('span', 'no', t('seat', { n })));
      box.appendChild(el('span', 'who', who ? who.bettor_id : t('seat.empty')));
      box.appendChild(R.slipNode(document, who ? slips[n] || slips[String(n)] : null, S.lang, s.profile, x));
      seats.push(box);
    }
    $('seats').replaceChildren(...seats);
    const spectators = Object.keys(s.spectators || {});
    const box = $('spectators');
    box.replaceChildren();
    if (s.profile === 'bid-squeeze') {
      box.appendChild(el('h2', null, t('spectators')));
      if (!spectators.length) box.appendChild(el('span', null, t('nobody')));
      for (const id of spectators) {
        const sp = el('div', 'spectator', null, { 'data-bettor': id });
        sp.appendChild(el('span', 'who', id));
        sp.appendChild(R.slipNode(document, ((s.book && s.book.spectators) || {})[id], S.lang, s.profile, x));
        box.appendChild(sp);
      }
    }
  }

  function renderSide() {
    const s = S.state;
    const x = s.minor_unit_exponent;
    const you = s.you || {};
    $('me-name').textContent = `${S.me} (${t('you')})`;
    $('me-place').textContent = R.placeLabel(S.lang, you.place);
    const balance = R.displayBalance(S.base, S.baseSeq, S.nets, s.seq);
    $('balance').textContent = R.money(balance, x);
    $('balance').dataset.value = balance === null ? '' : balance;
    const last = S.lastNet && S.lastNet.seq <= s.seq ? S.lastNet.net : null;
    const net = $('net');
    net.className = last === null ? '' : last >= 0 ? 'win' : 'lose';
    net.textContent = last === null ? '' : t('net', { net: (last > 0 ? '+' : '') + R.money(last, x) });
    $('history').replaceChildren(
      ...R.historyBeads(s.shoe ? s.shoe.history : []).map((b) => R.beadNode(document, b)));
    const road = window.BaccRoads.renderBigRoad(document, R.roadRounds(s.shoe), { minColumns: 11 });
    $('big-road').replaceChildren(road);
    // at a book table the crowd is counted, the first 20 named
    const crowd = s.crowd && s.crowd.watchers;
    const watchers = crowd ? crowd.first : s.watchers || [];
    $('watchers').textContent = (watchers.length ? watchers.join(' · ') : t('nobody')) +
      (crowd && crowd.count > watchers.length ? ` (+${crowd.count - watchers.length})` : '');
  }

  function renderChat() {
    const items = S.chat.list();
    const list = $('chat-list');
    list.replaceChildren(...items.map((m) => {
      const li = el('li', null, null, { 'data-id': m.message_id });
      li.appendChild(el('span', 'who', m.bettor_id));
      li.appendChild(el('span', 'text', m.text));
      return li;
    }));
    list.scrollTop = list.scrollHeight;
  }

  /** The countdowns, on the server's clock (the snapshot's `at` against this computer's). */
  function tick() {
    const s = S.state;
    if (!s) return;
    const phase = shownPhase();
    let deadline = null;
    if (phase === 'betting' || phase === 'locked') deadline = s.deadline; // locked: the beacon's time
    else if (phase === 'squeeze') {
      const view = R.squeezeView(s.round, S.me);
      deadline = view ? view.revealBy : s.deadline;
    }
    const left = R.secondsLeft(deadline, S.offset, Date.now());
    const node = $('countdown');
    node.textContent = left === null ? '' : t('countdown', { s: left });
    node.className = left !== null && left <= 3 ? 'low' : '';
    if (document.body.dataset.phase !== phase) render();
  }

  start();
})();

/*
 * The table page's labels, zh-Hant and en, in one table of keys (GET /table inlines it).
 *
 * The zh labels are the seeds' own words (seed 000 items 1–15 for star-city, seed 001's bet
 * table for bid-squeeze); a key may have a per-profile form (`area.star-city.banker_pair` is
 * 莊一對 where bid-squeeze says 莊對子). `{name}` in a label is replaced by the argument of that
 * name. A classic <script> (globalThis.BaccI18n) or a CommonJS module (tested under node).
 */
(function (root) {
  'use strict';

  const LABELS = {
    'title': { zh: '百家樂', en: 'Baccarat' },
    'table.number': { zh: '桌號 {number}', en: 'Table {number}' },
    'table.ratio': { zh: '倍率 {ratio}', en: 'Ratio {ratio}' },
    'table.limits': { zh: '底注和上限 {min} – {max}', en: 'Limits {min} – {max}' },
    'table.cards_remaining': { zh: '剩餘張數', en: 'Cards left' },
    'table.shoe': { zh: '第 {shoe} 靴 · 第 {round} 局', en: 'Shoe {shoe} · round {round}' },
    'profile.star-city': { zh: '星城百家樂', en: 'Star City Baccarat' },
    'profile.bid-squeeze': { zh: '競咪百家樂', en: 'Bid-Squeeze Baccarat' },
    'leave': { zh: '離開', en: 'Leave' },
    'dealer': { zh: '荷官', en: 'Dealer' },
    'dealer.house': { zh: '荷官（系統發牌）', en: 'Dealer (the house)' },
    'dealer.banker': { zh: '荷官 {name}', en: 'Player-banker {name}' },
    'urge': { zh: '催促鈕', en: 'Urge' },
    'seat': { zh: '座位 {n}', en: 'Seat {n}' },
    'seat.empty': { zh: '空位', en: 'Empty' },
    'place.banker': { zh: '荷官', en: 'Player-banker' },
    'place.spectator': { zh: '旁觀下注', en: 'Spectator' },
    'place.watcher': { zh: '觀局', en: 'Observer' },
    'spectators': { zh: '旁觀下注', en: 'Spectators betting' },
    'watchers': { zh: '觀局清單', en: 'Observers' },
    'nobody': { zh: '（無）', en: '(none)' },
    'you': { zh: '你', en: 'you' },
    'balance': { zh: '餘額', en: 'Balance' },
    'balance.star-city': { zh: '星幣', en: 'Star coins' },
    'chips': { zh: '押注籌碼', en: 'Chips' },
    'areas': { zh: '押注區', en: 'Bet areas' },
    'confirm': { zh: '確認押注', en: 'Confirm bets' },
    'cancel': { zh: '取消押注', en: 'Cancel bets' },
    'clear': { zh: '清除', en: 'Clear' },
    'slip.draft': { zh: '待確認 {total}', en: 'To confirm {total}' },
    'slip.confirmed': { zh: '已押注 {total}', en: 'Bet {total}' },
    'phase.betting': { zh: '請下注', en: 'Place your bets' },
    'phase.closed': { zh: '停止下注', en: 'No more bets' },
    'phase.squeeze': { zh: '瞇牌中', en: 'Squeeze' },
    'phase.dealt': { zh: '開牌', en: 'Cards shown' },
    'phase.settled': { zh: '本局結束', en: 'Round over' },
    'phase.idle': { zh: '等待開局', en: 'Waiting' },
    'phase.locked': { zh: '注單已鎖定', en: 'Bets locked' },
    'beacon.drand': { zh: '等待 drand 第 {round} 輪', en: 'Waiting for drand round {round}' },
    'beacon.test': { zh: '等待測試信標第 {round} 輪', en: 'Waiting for test beacon round {round}' },
    'beacon.void': { zh: '第 {round} 局作廢：信標未到，注金退回', en: 'Round {round} voided: beacon unavailable, stakes returned' },
    'countdown': { zh: '{s} 秒', en: '{s} s' },
    'squeeze.open': { zh: '開牌', en: 'Open' },
    'squeeze.yours': { zh: '由你瞇牌', en: 'You squeeze' },
    'squeeze.by': { zh: '{name} 瞇牌', en: '{name} squeezes' },
    'squeeze.system': { zh: '系統開牌', en: 'System reveal' },
    'squeeze.opened_by': { zh: '{name} 開牌', en: '{name} opened' },
    'hand.player': { zh: '閒', en: 'Player' },
    'hand.banker': { zh: '莊', en: 'Banker' },
    'result.banker': { zh: '莊贏', en: 'Banker wins' },
    'result.player': { zh: '閒贏', en: 'Player wins' },
    'result.tie': { zh: '和局', en: 'Tie' },
    'net': { zh: '本局輸贏 {net}', en: 'This round {net}' },
    'history': { zh: '歷史開牌', en: 'Last results' },
    'big_road': { zh: '大路', en: 'Big road' },
    'chat': { zh: '聊天視窗', en: 'Chat' },
    'chat.send': { zh: '送出', en: 'Send' },
    'chat.placeholder': { zh: '輸入文字…', en: 'Say something…' },
    'urged': { zh: '{name} 催促下注', en: '{name} urges' },
    'error': { zh: '錯誤：{code}', en: 'Error: {code}' },
    'status.connecting': { zh: '連線中…', en: 'Connecting…' },
    'status.live': { zh: '即時', en: 'Live' },
    'status.resyncing': { zh: '同步中…', en: 'Resyncing…' },
    'status.reconnecting': { zh: '重新連線…', en: 'Reconnecting…' },
    'status.closed': { zh: '已離線', en: 'Offline' },
    'left': { zh: '已離開，返回大廳…', en: 'Left the table: back to the lobby…' },
    'no_token': { zh: '缺少玩家憑證', en: 'No player token in the link' },
    'area.tie': { zh: '和', en: 'Tie' },
    'area.banker_pair': { zh: '莊對子', en: 'Banker pair' },
    'area.star-city.banker_pair': { zh: '莊一對', en: 'Banker pair' },
    'area.player_pair': { zh: '閒對子', en: 'Player pair' },
    'area.star-city.player_pair': { zh: '閒一對', en: 'Player pair' },
    'area.banker': { zh: '莊', en: 'Banker' },
    'area.player': { zh: '閒', en: 'Player' },
    'area.banker_no_commission': { zh: '免佣莊', en: 'No-commission Banker' },
    'area.big': { zh: '大', en: 'Big' },
    'area.small': { zh: '小', en: 'Small' },
    'area.lucky6': { zh: '幸運6', en: 'Lucky 6' },
    'area.any_pair': { zh: '任意對子', en: 'Any pair' },
    'area.perfect_pair': { zh: '完美對子', en: 'Perfect pair' },
    'area.player_dragon': { zh: '閒龍寶', en: 'Player Dragon' },
    'area.banker_dragon': { zh: '莊龍寶', en: 'Banker Dragon' },
  };

  const LANGS = ['zh', 'en'];

  /** The page's language: the fragment's `lang` if known, else the browser's (zh* → zh). */
  function pickLang(asked, navigatorLanguage) {
    if (LANGS.includes(asked)) return asked;
    return /^zh/i.test(navigatorLanguage || '') ? 'zh' : 'en';
  }

  /** A profile's own form of a key: `area.banker_pair` → `area.star-city.banker_pair`,
   * `balance` → `balance.star-city`. */
  function ownForm(key, profile) {
    const dot = key.indexOf('.');
    return dot < 0 ? `${key}.${profile}` : `${key.slice(0, dot)}.${profile}${key.slice(dot)}`;
  }

  /** The label of `key` in `lang` (a profile's own form first), its `{name}`s filled in. */
  function t(lang, key, args = {}, profile = null) {
    const entry = (profile && LABELS[ownForm(key, profile)]) || LABELS[key];
    const text = entry ? entry[lang] || entry.en : key;
    return text.replace(/\{(\w+)\}/g, (m, name) => (name in args ? String(args[name]) : m));
  }

  const api = Object.freeze({ LABELS, LANGS, pickLang, t });
  root.BaccI18n = api;
  if (typeof module === 'object' && module && typeof module.exports === 'object') {
    module.exports = api;
  }
})(typeof globalThis !== 'undefined' ? globalThis : this);

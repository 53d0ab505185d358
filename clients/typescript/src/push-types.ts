// The push client's types (src/push.ts's options, its socket, clock and fetch, the messages):
// types only, so push.ts stays a module with no runtime import (web/push.js is built from it).
import type { components } from './generated/openapi.ts';

type Schemas = components['schemas'];
export type FeedPage = Schemas['EventsPageOut'];
export type ChatPage = Schemas['ChatPageOut'];
export type PushMessage = Schemas['PushMessage'];
export type PushEvents = Schemas['PushEvents'];
export type PushChat = Schemas['PushChat'];
export type PushRotate = Schemas['PushRotate'];
export type PushChatLine = Schemas['PushChatLine'];
export type TableEvent = Schemas['EventOut'];
export type TableState = Schemas['TableStateOut'];

export type PushStatus = 'connecting' | 'live' | 'resyncing' | 'reconnecting' | 'closed';

/** The few timer functions the helper uses (tests pass a manual clock). */
export interface PushClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What `onTokenExpiring` may answer: the token, or the mint answer (`TokenOut`) itself. */
export type FreshToken = string | { token: string; expires_at?: string; expiresAt?: number };

/** The WebSocket the helper needs: the browser's own, or `ws`'s in Node. */
export interface PushSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
export type PushSocketConstructor = new (url: string, protocols: string[]) => PushSocket;
export type PushFetch = (url: string, init: { headers: Record<string, string> }) => Promise<Response>;

export interface SubscribeTableOptions {
  /** The API's base URL, e.g. `https://api.example.com` (no trailing `/v1`). */
  api: string;
  tableId: string;
  /** A player token of that table (or the operator key). */
  token: string;
  WebSocket?: PushSocketConstructor;
  fetch?: PushFetch;
  /** The state: at the start, after a resync too far behind, and on `refresh()`. */
  onSnapshot(state: TableState): void;
  /** Table events in seq order, each once, each after the last snapshot's `seq`. */
  onEvents(events: TableEvent[]): void;
  /** Chat lines, each once (by `message_id`): the recent ones at the start and after a rotation, then as posted. */
  onChat?(message: PushChatLine): void;
  onStatus?(status: PushStatus, detail?: string): void;
  onError?(err: unknown): void;
  /** The token's expiry (Unix seconds): the mint answer's `expires_at`. */
  expiresAt?: number;
  /** Called 60 s before `expiresAt`: the operator's page answers a fresh token. */
  onTokenExpiring?(): Promise<FreshToken>;
  /** The mint answer's `push_url` and `push_channel`: subscribe before the first state read. */
  pushUrl?: string | null;
  channel?: string;
  /** Tests: a manual clock, a fixed random. */
  clock?: PushClock;
  random?: () => number;
}

export interface TableSubscription {
  close(): void;
  /** The last seq applied (0 before the first snapshot). */
  lastSeq(): number;
  /** Re-read the state → onSnapshot. */
  refresh(): Promise<void>;
}

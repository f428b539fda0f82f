// Our own small declarations of the Foundry VTT globals this module uses, written from the public
// API documentation (foundryvtt.com/api). Deliberately loose: only what the module touches.

interface FoundryDocumentLike {
  id: string | null;
  uuid: string;
  name: string;
  flags: Record<string, any>;
  isOwner?: boolean;
  update(data: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

interface FoundrySceneLike {
  id: string | null;
  grid: { size: number; distance: number; units: string };
  flags: Record<string, any>;
  tokens: Iterable<any>;
  updateEmbeddedDocuments(name: string, updates: Record<string, unknown>[], options?: Record<string, unknown>): Promise<unknown>;
}

interface FoundryUserLike {
  id: string;
  name: string;
  isGM: boolean;
  active?: boolean;
  isSelf?: boolean;
  /** v13+: ask this user's client (CONFIG.queries[name]); rejects on timeout. */
  query?(name: string, data: Record<string, unknown>, options?: { timeout?: number }): Promise<unknown>;
  /** Document#getFlag / setFlag / unsetFlag (a user may write its own User's flags). */
  getFlag?(scope: string, key: string): unknown;
  setFlag(scope: string, key: string, value: unknown): Promise<unknown>;
  unsetFlag(scope: string, key: string): Promise<unknown>;
}

interface FoundryGame {
  i18n: { localize(key: string): string; format(key: string, data?: Record<string, string>): string };
  settings: {
    register(namespace: string, key: string, config: Record<string, unknown>): void;
    get(namespace: string, key: string): unknown;
    set(namespace: string, key: string, value: unknown): Promise<unknown>;
  };
  user: FoundryUserLike;
  world: { id: string };
  release?: { generation: number };
  modules: { get(id: string): ({ api?: Record<string, unknown> } & Record<string, unknown>) | undefined };
  socket: {
    emit(channel: string, message: unknown): void;
    /** v12: the listener is told the sending user's id (https://foundryvtt.wiki/en/development/api/sockets). */
    on(channel: string, fn: (message: unknown, senderId?: string) => void): void;
    off?(channel: string, fn: (message: unknown, senderId?: string) => void): void;
  };
  scenes: { viewed: FoundrySceneLike | null; get(id: string): FoundrySceneLike | undefined };
  /** The world's users: iterable, and the Users collection's lookups. */
  users: Iterable<FoundryUserLike> & {
    get(id: string): FoundryUserLike | undefined;
    activeGM: FoundryUserLike | null;
    filter(fn: (user: FoundryUserLike) => boolean): FoundryUserLike[];
  };
  combats?: { active: { round: number } | null };
  actors?: { get(id: string): FoundryDocumentLike | undefined };
  combat?: { round: number } | null;
}

declare const game: FoundryGame;

declare const Hooks: {
  on(hook: string, fn: (...args: any[]) => unknown): number;
  once(hook: string, fn: (...args: any[]) => unknown): number;
  callAll(hook: string, ...args: unknown[]): boolean;
};

declare const ui: {
  notifications: { info(message: string): unknown; warn(message: string): unknown; error(message: string): unknown };
};

declare const CONFIG: {
  statusEffects: unknown;
  queries?: Record<string, (data: any, options?: any) => unknown>;
  Actor: { documentClass: { updateDocuments(updates: Record<string, unknown>[], options?: Record<string, unknown>): Promise<unknown> } };
};

declare const canvas: { scene: FoundrySceneLike | null } | undefined;

declare const foundry: {
  applications: {
    api: {
      ApplicationV2: any;
      DocumentSheetV2: any;
      HandlebarsApplicationMixin: (base: any) => any;
      DialogV2: any;
    };
  };
  data?: { operators?: { ForcedDeletion?: any } };
};

declare function fromUuid(uuid: string): Promise<any>;

declare const ChatMessage: { create(data: Record<string, unknown>): Promise<unknown> };

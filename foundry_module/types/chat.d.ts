// Declarations for the ruling cards (chat-canvas.mjs), written from the public API docs
// (foundryvtt.com/api v13). Loose on purpose: only what the wiring reads.

interface FoundryGame {
  /** The world's users (`game.users`): the cards are whispered to the GMs among them. */
  users?: Iterable<{ id: string; isGM: boolean }>;
}

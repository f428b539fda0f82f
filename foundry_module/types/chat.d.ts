// Declarations for the ruling cards (foundry/ruling-messages.mjs), written from the public API docs
// (foundryvtt.com/api v13). Loose on purpose: only what the wiring reads.

// `game.users` (the cards are whispered to the GMs among them) is declared in foundry.d.ts.

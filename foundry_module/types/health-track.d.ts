// The Foundry globals the Health track wiring reads (from the public API docs, foundryvtt.com/api):
// Foundry exposes the PixiJS namespace as the global `PIXI` (PixiJS 7 in Foundry 12/13).

declare var PIXI: typeof import("pixi.js");

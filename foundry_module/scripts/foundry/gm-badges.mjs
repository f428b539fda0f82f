/**
 * Foundry wiring of the GM's badges (thin; the decisions are `core/gm-badges.mjs`'s): on a GM's
 * client, each token some observer does not pinpoint carries a small badge at its top right
 * (≈ approximate, ✕ unlocated, with counts); hovering the badge shows, in words, which observers
 * locate it how. Players never get them (nothing is drawn unless `game.user.isGM`). The first hover
 * asks the sidecar's `explain` for each such observer (on the browser that runs the bridge) and adds
 * why, in words (`core/gm-badges.mjs` `pairReasons`): the means, the Ranks and Essences that decided,
 * the standing contest, the GM's pin. A ruling redraws the badges and forgets the answers. A click
 * on a badge opens the panel of who locates whom on that token (`locate-panel.mjs`).
 *
 * Foundry API used (public pages): `canvas.controls`, `canvas.tokens.placeables`, a token's `x`,
 * `y`, `w` — https://foundryvtt.com/api/v13/classes/foundry.canvas.placeables.Token.html; the PixiJS
 * pointer events `pointerover` / `pointerout` — https://pixijs.download/release/docs/events.FederatedPointerEvent.html.
 * @module gm-badges
 */

import { badgeCounts, badgeLabel, badgeLines, pairReasons, reasonWords } from "../core/gm-badges.mjs";
import { createText, fillRoundedRect, setLabel } from "../core/drawing.mjs";
import { VISIBILITY_HOOK } from "./visibility-canvas.mjs";
import { visibilityFlagOf } from "../core/visibility.mjs";

export const BADGES_LABEL = "vtt-bridge-gm-badges";

/** The reasons' indent under an observer's line: no-break spaces, so a long line without spaces (Chinese) wraps in place. */
const INDENT = "\u00a0".repeat(4);

/** The hover words' width before they wrap, pixels. */
const TIP_WIDTH = 440;

export class GmBadges {
  /**
   * @param {any} env usually `globalThis`
   * @param {(key: string, data?: Record<string, string>) => string} localize
   * @param {() => ((query: Record<string, unknown>) => Promise<any>)|null} [explainer] the sidecar's
   *   query function now (null: this browser does not run the bridge)
   * @param {(focus: string[]) => unknown} [onOpen] a click on a badge: the panel of who locates whom, on that token
   */
  constructor(env, localize, explainer = () => null, onOpen = () => null) {
    this.env = env;
    this.localize = localize;
    this.explainer = explainer;
    this.onOpen = onOpen;
    /** @type {any} */
    this.layer = null;
    /** @type {Map<string, any>} token id → its badge */
    this.badges = new Map();
  }

  install() {
    const { Hooks } = this.env;
    const redraw = () => this.redraw();
    Hooks.on(VISIBILITY_HOOK, redraw);
    Hooks.on("canvasReady", () => {
      this.layer = null;
      this.redraw();
    });
    Hooks.on("updateToken", (/** @type {any} */ _doc, /** @type {any} */ changes) => {
      if (changes && ("x" in changes || "y" in changes)) this.redraw();
    });
    Hooks.on("deleteToken", redraw);
  }

  /** Every badge again (a GM client only). */
  redraw() {
    const { canvas, game, PIXI } = this.env;
    if (!canvas?.controls) return;
    if (!this.layer || this.layer.destroyed || this.layer.parent !== canvas.controls) {
      this.layer = new PIXI.Container();
      setLabel(this.layer, BADGES_LABEL);
      canvas.controls.addChild(this.layer);
    }
    for (const badge of this.layer.removeChildren()) badge.destroy?.({ children: true });
    this.badges.clear();
    if (!game.user?.isGM) return;
    const placeables = canvas.tokens?.placeables ?? [];
    const names = new Map(placeables.map((/** @type {any} */ t) => [t.document?.id, t.document?.name ?? t.document?.id]));
    for (const token of placeables) {
      const counts = badgeCounts(visibilityFlagOf(token.document));
      if (!counts) continue;
      const badge = new PIXI.Container();
      setLabel(badge, "vtt-bridge-gm-badge");
      const text = createText(PIXI, badgeLabel(counts), { fontFamily: "Signika, sans-serif", fontSize: 14, fill: 0xffffff });
      const back = new PIXI.Graphics();
      const width = Math.max(28, (text.width ?? 20) + 10);
      fillRoundedRect(back, 0, 0, width, 20, 6, 0x202020, 0.85);
      text.position.set(5, 2);
      badge.addChild(back, text);
      badge.position.set((token.document?.x ?? token.x) + (token.w ?? 100) - width / 2, (token.document?.y ?? token.y) - 10);
      const nameOf = (/** @type {string} */ id) => String(names.get(id) ?? id);
      const words = createText(PIXI, badgeLines(counts, nameOf, this.localize).join("\n"), {
        fontFamily: "Signika, sans-serif",
        fontSize: 13,
        fill: 0xffffff,
        stroke: 0x000000,
        strokeWidth: 2,
        wordWrap: true,
        wordWrapWidth: TIP_WIDTH,
        // Chinese has no spaces to wrap at
        breakWords: true,
      });
      // the words on a dark back, kept inside the scene's width when the canvas says it
      const tipBack = new PIXI.Graphics();
      const fit = () => {
        tipBack.clear?.();
        fillRoundedRect(tipBack, 0, 0, (words.width ?? TIP_WIDTH) + 12, (words.height ?? 20) + 8, 6, 0x101010, 0.88);
        const sceneWidth = Number(canvas.dimensions?.width ?? 0);
        const left = sceneWidth ? Math.min(0, sceneWidth - badge.x - (words.width ?? TIP_WIDTH) - 18) : 0;
        tipBack.position.set(left - 6, 22);
        words.position.set(left, 26);
      };
      fit();
      tipBack.visible = words.visible = false;
      badge.addChild(tipBack, words);
      badge.vttWords = words;
      badge.vttFit = fit;
      badge.eventMode = "static";
      badge.vttWhy = null;
      badge.on("pointerover", () => {
        tipBack.visible = words.visible = true;
        // drawn above the other badges while shown
        this.layer.addChild(badge);
        if (!badge.vttWhy) badge.vttWhy = this.#explain(token.document?.id, counts, nameOf, words, fit);
      });
      badge.on("pointerout", () => (tipBack.visible = words.visible = false));
      badge.on("pointerdown", () => this.onOpen([String(token.document?.id)]));
      this.layer.addChild(badge);
      this.badges.set(token.document?.id, badge);
    }
  }

  /**
   * Ask `explain` for each pair of the badge and write the answers under the observers' lines.
   * @param {string} target
   * @param {import("../core/gm-badges.mjs").BadgeCounts} counts
   * @param {(id: string) => string} nameOf
   * @param {any} words the hover text
   * @param {() => void} fit sizes the text's back to it
   * @returns {Promise<void>}
   */
  async #explain(target, counts, nameOf, words, fit) {
    const query = this.explainer();
    const head = badgeLines(counts, nameOf, this.localize);
    if (!query) {
      words.text = [...head, this.localize("VTTBRIDGE.Badge.Why.noBridge")].join("\n");
      fit();
      return;
    }
    /** @type {string[]} */
    const why = counts.pairs.map(() => this.localize("VTTBRIDGE.Badge.Why.asking"));
    const show = () => {
      if (words.destroyed) return;
      words.text = [head[0], ...counts.pairs.flatMap((_p, i) => [head[i + 1], ...(why[i] ? [`${INDENT}${why[i]}`] : [])])].join("\n");
      fit();
    };
    show();
    await Promise.all(
      counts.pairs.map(async (pair, i) => {
        try {
          const answer = await query({ kind: "explain", observer: pair.observer, target });
          why[i] = reasonWords(pairReasons(answer?.log), this.localize);
        } catch (error) {
          why[i] = this.localize("VTTBRIDGE.Badge.Why.failed", { message: /** @type {Error} */ (error)?.message ?? String(error) });
        }
        show();
      }),
    );
  }
}

/**
 * Install the GM's badges. Call once, in the `init` hook.
 * @param {{env?: any, localize: (key: string, data?: Record<string, string>) => string, explainer?: () => ((query: Record<string, unknown>) => Promise<any>)|null, onOpen?: (focus: string[]) => unknown}} options
 * @returns {GmBadges}
 */
export function installGmBadges({ env = globalThis, localize, explainer, onOpen }) {
  const badges = new GmBadges(env, localize, explainer, onOpen);
  badges.install();
  return badges;
}

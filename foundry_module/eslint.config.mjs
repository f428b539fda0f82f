import js from "@eslint/js";
import globals from "globals";

const foundryGlobals = {
  game: "readonly",
  Hooks: "readonly",
  ui: "readonly",
  CONFIG: "readonly",
  canvas: "readonly",
  foundry: "readonly",
  fromUuid: "readonly",
  ChatMessage: "readonly",
};

export default [
  { ignores: ["node_modules/**"] },
  js.configs.recommended,
  {
    files: ["scripts/**/*.mjs"],
    ignores: ["scripts/core/**"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser, ...foundryGlobals } },
  },
  {
    // pure decisions: no Foundry global (tests/unit/layers.test.mjs checks the imports too)
    files: ["scripts/core/**/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    // the sidecar's status page script, an ES module (../vtt_bridge/web/static/*.js), linted from stdin under this name
    files: ["static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["tests/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
    },
  },
];

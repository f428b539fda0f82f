/**
 * Node module hooks (https://nodejs.org/api/module.html#customization-hooks): a module file imported
 * with `?browser=<id>` imports the module's own files (those under `root`) with the same query, so a
 * simulated browser's copy of the module is a whole module graph of its own, as each Foundry page
 * loads the manifest's `esmodules` for itself.
 */

/** @type {{postMessage: (url: string) => void}|null} */
let port = null;
/** @type {string} */
let root = "";

/** @param {{port: any, root: string}} data */
export async function initialize(data) {
  port = data.port;
  root = data.root;
}

/**
 * @param {string} specifier
 * @param {{parentURL?: string}} context
 * @param {(specifier: string, context: any) => Promise<{url: string}>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const browser = context.parentURL ? new URL(context.parentURL).searchParams.get("browser") : null;
  if (!browser || !result.url.startsWith(root)) return result;
  const url = new URL(result.url);
  if (url.searchParams.has("browser")) return result;
  url.searchParams.set("browser", browser);
  port?.postMessage(url.href);
  return { ...result, url: url.href };
}

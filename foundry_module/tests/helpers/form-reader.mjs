/**
 * What a form submits, read from its markup as FormDataExtended reads a rendered form
 * (https://foundryvtt.com/api/classes/foundry.applications.ux.FormDataExtended.html): every named
 * input and select that is not disabled, numbers of `data-dtype="Number"` inputs as numbers,
 * checkboxes as booleans; a `<template>`'s content is not part of the form. For the rules sheet's
 * own markup (attributes double-quoted, as it writes them).
 */

/** @param {string} text */
const unescape = (text) => text.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, "&").replace(/&quot;/g, '"');

/**
 * @param {string} html
 * @returns {Record<string, unknown>}
 */
export function readForm(html) {
  const live = html.replace(/<template[\s\S]*?<\/template>/g, "");
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [tag] of live.matchAll(/<input\b[^>]*>/g)) {
    const attr = (/** @type {string} */ name) => {
      const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
      return m ? unescape(m[1]) : undefined;
    };
    const name = attr("name");
    if (!name || /\sdisabled[\s>]/.test(tag)) continue;
    const type = attr("type") ?? "text";
    if (type === "checkbox") out[name] = /\schecked[\s>]/.test(tag);
    else if (attr("data-dtype") === "Number") out[name] = attr("value") === "" || attr("value") === undefined ? null : Number(attr("value"));
    else out[name] = attr("value") ?? "";
  }
  for (const [, attrs, body] of live.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = /\sname="([^"]*)"/.exec(attrs)?.[1];
    if (!name || /\sdisabled/.test(attrs)) continue;
    const options = [...body.matchAll(/<option value="([^"]*)"( selected)?>/g)];
    out[unescape(name)] = unescape((options.find((o) => o[2]) ?? options[0])?.[1] ?? "");
  }
  return out;
}

// DOM helpers. Everything that comes from the index is put on the page as text nodes or
// attribute values through DOM APIs, never parsed as markup.

/** Creates an element: `attrs` are properties (`className`, `textContent`, `hidden`, …)
 * or, for names with a dash and `aria`/`data` names, attributes; children are nodes or
 * strings (added as text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.includes("-") || name === "role" || name === "for") {
      node.setAttribute(name, String(value));
    } else {
      node[name] = value;
    }
  }
  append(node, children);
  return node;
}

/** Appends nodes and strings (as text) to `node`, skipping null and false. */
export function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Removes every child of `node`. */
export function clear(node) {
  node.replaceChildren();
  return node;
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Decodes the character references of escaped text (`&lt;`, `&#39;`, `&#x27;`). */
export function unescapeHtml(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The daemon's snippets are escaped text with `<b>…</b>` around matched terms: they
 * become text nodes and `<mark>` elements (no other markup is ever interpreted). */
export function snippetNodes(snippet) {
  const nodes = [];
  const parts = String(snippet ?? "").split(/(<b>|<\/b>)/);
  let bold = false;
  for (const part of parts) {
    if (part === "<b>") { bold = true; continue; }
    if (part === "</b>") { bold = false; continue; }
    if (!part) continue;
    const text = unescapeHtml(part);
    nodes.push(bold ? el("mark", { textContent: text }) : document.createTextNode(text));
  }
  return nodes;
}

/** `m:ss` or `h:mm:ss`. */
export function clock(seconds) {
  const total = Math.max(0, Math.floor(Number(seconds) || 0));
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** A byte count for people. */
export function bytes(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = Number(n) || 0, i = 0;
  while (value >= 1024 && i < units.length - 1) { value /= 1024; i += 1; }
  return `${value.toFixed(i === 0 || value >= 10 ? 0 : 1)} ${units[i]}`;
}

/** An RFC 3339 time as `YYYY-MM-DD HH:MM` on its own clock (the index keeps the wall
 * clock of the evidence). */
export function wallClock(rfc3339) {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(String(rfc3339 ?? ""));
  return match ? `${match[1]} ${match[2]}` : "";
}

/** "3 minutes ago" for an RFC 3339 time. */
export function ago(rfc3339) {
  const then = Date.parse(rfc3339);
  if (!Number.isFinite(then)) return "";
  const seconds = Math.max(0, (Date.now() - then) / 1000);
  if (seconds < 90) return "just now";
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} days ago`;
}

/** The last part of a path (an attachment's own name). */
export function baseName(path) {
  const parts = String(path).split("/");
  return parts[parts.length - 1] || String(path);
}

/** The folder of a path (empty at the root). */
export function folderOf(path) {
  const inner = String(path).split("#attachment/")[0];
  const cut = inner.lastIndexOf("/");
  return cut < 0 ? "" : inner.slice(0, cut);
}

/** `YYYY-MM-DD` as Unix seconds at 00:00 UTC (the index stores zone-less wall clocks
 * as UTC), or null. */
export function dayToUnix(day) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day || "")) return null;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** Unix seconds as `YYYY-MM-DD` (UTC). */
export function unixToDay(seconds) {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

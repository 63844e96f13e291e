// A unit's evidence: its locator, a thumbnail of the PDF page / image / video frame, a
// player that starts at its time window, a sheet's rows with their header, an e-mail's
// header lines, and the per-signal scores of `explain`.

import { el, clock, wallClock, snippetNodes } from "./dom.js";
import { renderUrl, fileUrl } from "./api.js";

/** A unit of a search hit (`/api/search`) in the shape used below. */
export function fromHit(hit) {
  const m = hit.metadata || {};
  return {
    path: m.file_path, unitId: hit.id, kind: m.kind, text: hit.text || "",
    snippet: m.snippet, title: m.title || "", page: m.page, pageLabel: m.page_label,
    slide: m.slide, sheet: m.sheet, rowStart: m.row_start, rowEnd: m.row_end,
    lineStart: m.line_start, lineEnd: m.line_end, lines: m.lines, start: m.start, end: m.end,
    contentTime: m.content_time, modality: m.modality, ext: String(m.file_type || "").toLowerCase(),
    signals: m.explain, score: hit.score, context: m.context === true,
  };
}

/** A segment of `/api/return_txt_full` in the same shape. */
export function fromSegment(info, segment) {
  return {
    path: info.file_path, unitId: segment.unit_id, kind: segment.kind, text: segment.content || "",
    snippet: null, title: segment.title || "", page: segment.page, pageLabel: segment.page_label,
    slide: segment.slide, sheet: segment.sheet, rowStart: segment.row_start, rowEnd: segment.row_end,
    lineStart: segment.line_start, lineEnd: segment.line_end, lines: segment.lines,
    start: segment.start_seconds, end: segment.end_seconds, contentTime: segment.content_time,
    modality: info.file_modality, ext: String(info.file_type || "").toLowerCase(),
  };
}

const has = (value) => value !== undefined && value !== null;

/** Where the unit is in its file, for people: "page 3", "0:09–0:13", "rows 1–19 of Sales",
 * "lines 26, 51, 76 (+28 more)" for a log's records gathered from across the file. */
export function locatorText(u, withKind = true) {
  const parts = [];
  if (has(u.page)) {
    parts.push(u.pageLabel && String(u.pageLabel) !== String(u.page)
      ? `page ${u.page} (printed ${u.pageLabel})` : `page ${u.page}`);
  }
  if (has(u.slide)) parts.push(`slide ${u.slide}`);
  if (has(u.rowStart)) {
    parts.push(`${u.sheet ? `${u.sheet}, ` : ""}rows ${u.rowStart}–${u.rowEnd ?? u.rowStart}`);
  } else if (u.sheet) {
    parts.push(u.sheet);
  }
  if (u.lines?.length) {
    const more = u.lines.length > 5 ? ` (+${u.lines.length - 5} more)` : "";
    parts.push(`lines ${u.lines.slice(0, 5).join(", ")}${more}`);
  } else if (has(u.lineStart)) {
    parts.push(`lines ${u.lineStart}–${u.lineEnd ?? u.lineStart}`);
  }
  if (has(u.start)) parts.push(has(u.end) ? `${clock(u.start)}–${clock(Math.ceil(u.end))}` : `from ${clock(u.start)}`);
  if (!parts.length && u.kind && withKind) parts.push(u.kind);
  const when = wallClock(u.contentTime);
  if (when) parts.push(when);
  return parts.join(" · ");
}

const isPdf = (u) => u.ext === "pdf";

/** The evidence shown beside a unit (thumbnail or player), or null. */
export function sideEvidence(u) {
  if (isPdf(u)) {
    const page = u.page || 1;
    return thumbnail(u.path, { page }, `Page ${page} of ${u.path}`, "pdf");
  }
  if (u.modality === "image") return thumbnail(u.path, {}, `Image ${u.path}`, "image");
  if (u.modality === "video") {
    const second = has(u.start) ? u.start : 0;
    const box = el("div", { className: "media-box" });
    box.append(thumbnail(u.path, { second }, `Frame at ${clock(second)} of ${u.path}`, "video"),
      playButton(u, "video", box));
    return box;
  }
  if (u.modality === "audio") {
    const box = el("div", { className: "media-box" });
    box.append(playButton(u, "audio", box));
    return box;
  }
  return null;
}

/** Evidence inside the unit's text column: rows with their header, e-mail headers. */
export function inlineEvidence(u) {
  if (u.kind === "rows") return rowsTable(u.text);
  if (u.kind === "message") return mailHeaders(u.text);
  return null;
}

/** The snippet (highlighted) or the start of the text. */
export function snippetOf(u) {
  const p = el("p", { className: "snippet" });
  if (u.snippet) p.append(...snippetNodes(u.snippet));
  else p.textContent = u.text.length > 400 ? `${u.text.slice(0, 400)}…` : u.text;
  return p;
}

// Thumbnails render when they come near the viewport.
const pending = new WeakMap();
const observer = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    observer.unobserve(entry.target);
    const start = pending.get(entry.target);
    if (start) start();
  }
}, { rootMargin: "300px" });

function thumbnail(path, options, label, type) {
  const img = el("img", { alt: label, decoding: "async" });
  const caption = el("figcaption", { textContent: "rendering…" });
  const figure = el("figure", {
    className: `thumb loading thumb-${type}`, "data-page": options.page, "data-second": options.second,
  }, img, caption);
  pending.set(figure, () => {
    renderUrl(path, options).then((url) => {
      img.addEventListener("load", () => {
        figure.classList.remove("loading");
        caption.textContent = type === "pdf" ? `page ${options.page}`
          : type === "video" ? `frame at ${clock(options.second)}` : "";
      }, { once: true });
      img.src = url;
    }).catch((error) => {
      figure.classList.remove("loading");
      figure.classList.add("failed");
      caption.textContent = `no preview: ${error.message}`;
    });
  });
  observer.observe(figure);
  return figure;
}

function playButton(u, tag, box) {
  const start = has(u.start) ? u.start : 0;
  const label = has(u.end) ? `${clock(start)}–${clock(Math.ceil(u.end))}` : `from ${clock(start)}`;
  const button = el("button", {
    type: "button", className: "play", textContent: `▶ Play ${label}`,
    "aria-label": `Play ${u.path} ${label}`,
  });
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    startPlayer(box, u, tag, button);
  });
  return button;
}

/** Replaces the box's content by a player that starts at the unit's start and pauses at
 * its end. */
async function startPlayer(box, u, tag, button) {
  button.disabled = true;
  button.textContent = "loading…";
  const start = has(u.start) ? Number(u.start) : 0;
  const end = has(u.end) ? Number(u.end) : null;
  const media = el(tag, { controls: true, preload: "auto", className: "player", "data-start": start });
  media.addEventListener("loadedmetadata", () => {
    media.currentTime = start;
    media.play().catch(() => { /* autoplay refused: the controls are there */ });
  }, { once: true });
  if (end !== null && end > start) {
    const stop = () => {
      if (media.currentTime >= end) {
        media.pause();
        media.removeEventListener("timeupdate", stop);
      }
    };
    media.addEventListener("timeupdate", stop);
  }
  media.addEventListener("error", () => {
    box.append(el("p", { className: "error", textContent: "cannot play this file in the browser" }));
  }, { once: true });
  try {
    media.src = await fileUrl(u.path);
  } catch (error) {
    button.disabled = false;
    button.textContent = `cannot load: ${error.message}`;
    return;
  }
  box.replaceChildren(media);
  media.focus();
}

/** "Sheet: S\nheader | …\nrow | …" as a table (at most 12 rows shown). */
function rowsTable(text) {
  const lines = text.split("\n").filter((l) => l.trim());
  if (lines.length < 2) return null;
  let caption = null;
  if (lines[0].startsWith("Sheet: ")) caption = lines.shift().slice(7);
  const [header, ...rows] = lines;
  const cells = (line) => line.split(" | ");
  const table = el("table", { className: "rows" });
  if (caption) table.append(el("caption", { textContent: caption }));
  table.append(el("thead", {}, el("tr", {}, cells(header).map((c) => el("th", { scope: "col", textContent: c })))));
  const body = el("tbody");
  for (const row of rows.slice(0, 12)) {
    body.append(el("tr", {}, cells(row).map((c) => el("td", { textContent: c }))));
  }
  if (rows.length > 12) {
    body.append(el("tr", {}, el("td", { className: "muted", colSpan: cells(header).length, textContent: `… ${rows.length - 12} more rows` })));
  }
  table.append(body);
  return el("div", { className: "rows-wrap" }, table);
}

const MAIL_HEADERS = /^(From|To|Cc|Date|Subject|Attachments):\s?(.*)$/;

/** The header lines at the top of a message unit. */
function mailHeaders(text) {
  const list = el("dl", { className: "mail" });
  for (const line of text.split("\n")) {
    if (!line.trim()) break;
    const match = MAIL_HEADERS.exec(line);
    if (!match) break;
    list.append(el("dt", { textContent: match[1] }), el("dd", { textContent: match[2] }));
  }
  return list.childElementCount ? list : null;
}

/** The per-signal scores and ranks of a hit (`explain`). */
export function explainTable(signals) {
  if (!signals || !Object.keys(signals).length) return null;
  const table = el("table", { className: "explain" });
  const body = el("tbody");
  for (const [name, value] of Object.entries(signals)) {
    const shown = name.endsWith(".rank") ? `#${Math.round(value)}`
      : typeof value === "number" ? value.toFixed(4) : String(value);
    const row = el("tr", { className: value === 0 ? "zero" : "" },
      el("th", { scope: "row", textContent: name }), el("td", { textContent: shown }));
    body.append(row);
  }
  table.append(el("caption", { textContent: "signals" }), body);
  return table;
}

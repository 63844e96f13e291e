// The search view: query, mode, filters, the planner's decisions as removable chips,
// results grouped by file with their evidence, and explain.

import { el, clear, bytes, baseName, dayToUnix } from "./dom.js";
import { api } from "./api.js";
import { fromHit, locatorText, sideEvidence, inlineEvidence, snippetOf, explainTable } from "./evidence.js";
import { openFile } from "./viewer.js";

const $ = (id) => document.getElementById(id);
const PAGE = 10;

const state = {
  q: "", mode: "hybrid", modality: "", folder: "", from: "", to: "",
  disabled: new Set(), topK: PAGE,
};
let inflight = null;

export function setUpSearch() {
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    readForm();
    state.topK = PAGE;
    state.disabled.clear();
    run();
  });
  for (const id of ["mode", "modality", "from", "to"]) {
    $(id).addEventListener("change", () => {
      readForm();
      if (state.q || hasFilters()) run();
    });
  }
  $("explain").addEventListener("change", showExplain);
  $("more").addEventListener("click", () => {
    state.topK += PAGE;
    run();
  });
  $("results").addEventListener("keydown", onResultKey);
}

/** Fills the modality choices from the stats (with file counts). */
export function setModalities(filesByModality) {
  const select = $("modality");
  const chosen = select.value;
  const names = Object.keys(filesByModality || {}).sort();
  if (select.options.length - 1 === names.length) return;
  clear(select).append(el("option", { value: "", textContent: "any" }));
  for (const name of names) {
    select.append(el("option", { value: name, textContent: `${name} (${filesByModality[name]})` }));
  }
  select.value = chosen;
}

function readForm() {
  state.q = $("q").value.trim();
  state.mode = $("mode").value;
  state.modality = $("modality").value;
  state.folder = $("folder").value.trim().replace(/^\/+|\/+$/g, "");
  state.from = $("from").value;
  state.to = $("to").value;
}

function writeForm() {
  $("q").value = state.q;
  $("mode").value = state.mode;
  $("modality").value = state.modality;
  $("folder").value = state.folder;
  $("from").value = state.from;
  $("to").value = state.to;
}

const hasFilters = () => Boolean(state.modality || state.folder || state.from || state.to);

/** Restores a search from the address (`#search?q=…&mode=…`) and runs it. */
export function searchFromHash(params) {
  state.q = params.get("q") || "";
  state.mode = ["hybrid", "lexical", "dense"].includes(params.get("mode")) ? params.get("mode") : "hybrid";
  state.modality = params.get("modality") || "";
  state.folder = params.get("folder") || "";
  state.from = params.get("from") || "";
  state.to = params.get("to") || "";
  state.disabled = new Set((params.get("off") || "").split(",").filter(Boolean));
  writeForm();
  if (state.q || hasFilters()) run();
}

function hashOf() {
  const params = new URLSearchParams();
  for (const key of ["q", "modality", "folder", "from", "to"]) if (state[key]) params.set(key, state[key]);
  if (state.mode !== "hybrid") params.set("mode", state.mode);
  if (state.disabled.size) params.set("off", [...state.disabled].join(","));
  return `#search?${params}`;
}

function requestBody() {
  const body = {
    query: state.q, top_k: state.topK, mode: state.mode, explain: true, units_per_file: 3,
    disable_planner: [...state.disabled],
  };
  if (state.modality) body.modalities = [state.modality];
  if (state.folder) body.path_prefixes = [state.folder];
  const start = dayToUnix(state.from), end = dayToUnix(state.to);
  if (start !== null) body.time_start = start;
  if (end !== null) body.time_end = end + 86400;
  return body;
}

async function run() {
  if (inflight) inflight.abort();
  const controller = new AbortController();
  inflight = controller;
  history.replaceState(null, "", hashOf());
  const status = $("search-status");
  const results = $("results");
  status.className = "status busy";
  status.textContent = "Searching…";
  results.setAttribute("aria-busy", "true");
  let reply;
  try {
    reply = await api("/api/search", { body: requestBody(), signal: controller.signal });
  } catch (error) {
    if (error.name === "AbortError") return;
    status.className = "status error";
    status.textContent = error.message;
    results.removeAttribute("aria-busy");
    return;
  } finally {
    if (inflight === controller) inflight = null;
  }
  results.removeAttribute("aria-busy");
  render(reply);
}

function render(reply) {
  const files = reply.files || [];
  const units = files.reduce((n, f) => n + (f.units || []).length, 0);
  const status = $("search-status");
  status.className = "status";
  status.textContent = files.length
    ? `${files.length} file${files.length === 1 ? "" : "s"} (${units} unit${units === 1 ? "" : "s"}) · ${reply.total_units} units contain the words · ${Math.round(reply.took_ms)} ms`
    : "Nothing found.";
  renderChips(reply.explain || []);
  const notes = clear($("notes"));
  for (const note of reply.explain || []) notes.append(el("li", { textContent: note }));
  const results = clear($("results"));
  for (const file of files) results.append(fileCard(file));
  $("more").hidden = files.length < state.topK;
  showExplain();
}

function fileCard(hit) {
  const file = hit.file || {};
  const path = file.path || "";
  const facts = [file.modality || file.file_type, file.ext, file.size !== undefined ? bytes(file.size) : null]
    .filter(Boolean).join(" · ");
  const name = el("button", { type: "button", className: "file-name", textContent: file.title || baseName(path), title: `Open ${path}` });
  name.addEventListener("click", () => openFile(path, hit.units?.[0]?.id));
  const card = el("article", { className: "file", "data-path": path, "data-modality": file.modality || "" },
    el("header", { className: "file-head" },
      el("span", { className: `badge badge-${file.modality || "other"}`, textContent: file.modality || "file" }),
      name,
      el("span", { className: "path muted", textContent: path }),
      el("span", { className: "facts muted", textContent: facts }),
      el("span", { className: "score explain-only", textContent: `file score ${Number(hit.score).toFixed(4)}` })));
  const [best, ...others] = (hit.units || []).map(fromHit);
  if (best) card.append(unitRow(best));
  if (others.length) {
    const more = el("div", { className: "more-units", hidden: true }, others.map(unitRow));
    // Context units (a log's gathered records shown with its tied spans, neighbours)
    // are shown for the file, not ranked: counted apart.
    const shown = others.filter((u) => u.context).length;
    const ranked = others.length - shown;
    const label = [
      ranked ? `${ranked} more match${ranked === 1 ? "" : "es"} in this file` : null,
      shown ? `${shown} unit${shown === 1 ? "" : "s"} shown for context` : null,
    ].filter(Boolean).join(" · ");
    const toggle = el("button", { type: "button", className: "more-toggle", textContent: `▸ ${label}`, "aria-expanded": "false" });
    toggle.addEventListener("click", () => {
      more.hidden = !more.hidden;
      toggle.setAttribute("aria-expanded", String(!more.hidden));
      toggle.textContent = `${more.hidden ? "▸" : "▾"} ${label}`;
    });
    card.append(toggle, more);
  }
  return card;
}

function unitRow(u) {
  const main = el("div", { className: "unit-main" },
    el("div", { className: "locator" }, el("span", { className: "kind", textContent: u.kind }), " ", locatorText(u, false),
      u.context ? el("span", { className: "muted", textContent: " · context" }) : null),
    u.title && u.kind !== "rows" && u.kind !== "message" ? el("div", { className: "unit-title", textContent: u.title }) : null,
    snippetOf(u),
    inlineEvidence(u),
    el("div", { className: "explain-only" }, explainTable(u.signals)));
  const row = el("section", {
    className: "unit", tabIndex: 0, "data-unit-id": u.unitId, "data-kind": u.kind,
    "aria-label": `${baseName(u.path)}, ${u.kind} ${locatorText(u, false)}`,
  }, main);
  const side = sideEvidence(u);
  if (side) row.append(el("div", { className: "unit-side" }, side));
  row.addEventListener("click", (event) => {
    if (event.target.closest("button, audio, video, a, input, select")) return;
    openFile(u.path, u.unitId);
  });
  return row;
}

function showExplain() {
  const on = $("explain").checked;
  document.body.classList.toggle("explaining", on);
  $("notes").hidden = !on || !$("notes").childElementCount;
}

/** The planner's decisions, read from the notes of `explain`, as chips. */
export function plannerChips(notes) {
  const chips = [];
  const quoted = (text) => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
  for (const note of notes) {
    let m;
    if ((m = /^time: \[(.*)\] \(reference/.exec(note))) {
      chips.push({ label: `time: ${quoted(m[1]).join(", ")}`, off: "time" });
    } else if (note.startsWith("whose: first-person")) {
      chips.push({ label: "mine first", off: "whose" });
    } else if ((m = /^people: \[(.*)\] →/.exec(note))) {
      chips.push({ label: `people: ${quoted(m[1]).join(", ")}`, off: "people" });
    } else if ((m = /^folders: \d+ strong matches in "((?:[^"\\]|\\.)*)"/.exec(note))) {
      chips.push({ label: `only ${m[1]}?`, folder: m[1] });
    } else if ((m = /^(time|whose|people|folders): off$/.exec(note))) {
      chips.push({ label: `${m[1]} off`, on: m[1] });
    } else if (note.startsWith("hybrid requested but")) {
      chips.push({ label: "lexical only (no dense model)", info: note });
    }
  }
  return chips;
}

function renderChips(notes) {
  const box = clear($("chips"));
  const add = (label, title, action, className) => {
    const chip = el("button", { type: "button", className: `chip ${className}`, title, textContent: label });
    if (action) chip.addEventListener("click", action);
    else chip.disabled = true;
    box.append(chip);
  };
  for (const chip of plannerChips(notes)) {
    if (chip.off) {
      add(`${chip.label} ×`, `Planner decision; click to switch the ${chip.off} planner off`, () => {
        state.disabled.add(chip.off);
        run();
      }, "planner");
    } else if (chip.on) {
      add(`${chip.label} ↺`, `Switch the ${chip.on} planner back on`, () => {
        state.disabled.delete(chip.on);
        run();
      }, "planner off");
    } else if (chip.folder) {
      add(`+ ${chip.label}`, "Suggested by the planner: search this folder only", () => {
        state.folder = chip.folder;
        writeForm();
        run();
      }, "suggestion");
    } else {
      add(chip.label, chip.info, null, "info");
    }
  }
  const filter = (label, clearIt) => add(`${label} ×`, "Remove this filter", () => {
    clearIt();
    writeForm();
    run();
  }, "filter");
  if (state.modality) filter(`type: ${state.modality}`, () => { state.modality = ""; });
  if (state.folder) filter(`folder: ${state.folder}`, () => { state.folder = ""; });
  if (state.from) filter(`from ${state.from}`, () => { state.from = ""; });
  if (state.to) filter(`to ${state.to}`, () => { state.to = ""; });
}

/** j/k (or arrows) move between units, Enter opens the file, p plays. */
function onResultKey(event) {
  const unit = event.target.closest?.(".unit");
  if (!unit || event.target !== unit || event.altKey || event.ctrlKey || event.metaKey) return;
  const all = [...document.querySelectorAll("#results .unit")].filter((u) => u.offsetParent !== null);
  const index = all.indexOf(unit);
  if (event.key === "j" || event.key === "ArrowDown") {
    all[Math.min(all.length - 1, index + 1)]?.focus();
  } else if (event.key === "k" || event.key === "ArrowUp") {
    if (index === 0) $("q").focus();
    else all[index - 1]?.focus();
  } else if (event.key === "Enter") {
    openFile(unit.closest(".file").dataset.path, unit.dataset.unitId);
  } else if (event.key === "p") {
    unit.querySelector("button.play")?.click();
  } else {
    return;
  }
  event.preventDefault();
}

/** Moves the focus from the query box to the first result. */
export function focusFirstResult() {
  document.querySelector("#results .unit")?.focus();
}

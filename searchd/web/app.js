// Dentate's page: views by address (#search, #timeline), the index's state from
// /api/stats, the API-key prompt and the keyboard.

import { el, clear, ago } from "./dom.js";
import { api, apiKey, setApiKey, setKeyPrompt } from "./api.js";
import { setUpSearch, searchFromHash, setModalities, focusFirstResult } from "./search.js";
import { setUpTimeline, showTimeline } from "./timeline.js";
import { setUpViewer } from "./viewer.js";

const $ = (id) => document.getElementById(id);

function route() {
  const hash = location.hash.slice(1);
  const [view, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const timeline = view === "timeline";
  $("view-search").hidden = timeline;
  $("view-timeline").hidden = !timeline;
  $("tab-search").toggleAttribute("aria-current", !timeline);
  $("tab-timeline").toggleAttribute("aria-current", timeline);
  if (timeline) {
    $("tab-timeline").setAttribute("aria-current", "page");
    showTimeline(params);
  } else {
    $("tab-search").setAttribute("aria-current", "page");
    if (query !== undefined) searchFromHash(params);
  }
}

// ---- the index's state, polled while the page is visible

let previous = null;
let statsTimer = null;

async function refreshStats() {
  const box = $("stats");
  let stats;
  try {
    stats = await api("/api/stats");
  } catch (error) {
    box.className = "stats error";
    box.textContent = error.status === 401 ? "API key needed" : `daemon unreachable: ${error.message}`;
    return;
  }
  const t = stats.totals || {};
  setModalities(t.files_by_modality);
  const parts = [`${t.indexed ?? 0} files`, `${t.units ?? 0} units`];
  if (t.failed) parts.push(`${t.failed} failed`);
  const coverage = Number(stats.embedding_coverage ?? 1);
  const growing = previous && (t.indexed !== previous.indexed || t.units !== previous.units);
  const fresh = stats.last_commit && Date.now() - Date.parse(stats.last_commit) < 120000;
  clear(box);
  box.className = `stats${growing || coverage < 1 ? " indexing" : ""}`;
  if (growing || (fresh && coverage < 1)) {
    const added = previous ? t.indexed - previous.indexed : 0;
    box.append(el("strong", { textContent: `indexing${added > 0 ? ` (+${added} files)` : ""} · ` }));
  }
  box.append(parts.join(" · "));
  if (coverage < 1) {
    box.append(" · vectors ", el("progress", { max: 100, value: Math.floor(coverage * 100), title: `${(coverage * 100).toFixed(1)}% of units have text vectors` }),
      ` ${Math.floor(coverage * 100)}%`);
  }
  if (stats.dense_status) box.append(el("span", { className: "warn", textContent: ` · dense off: ${stats.dense_status}` }));
  if (stats.last_commit) box.append(el("span", { className: "muted", textContent: ` · updated ${ago(stats.last_commit)}`, title: stats.last_commit }));
  box.title = `profile ${stats.profile_root} · index ${stats.index_dir} · backend ${stats.backend}`;
  previous = { indexed: t.indexed, units: t.units };
}

function pollStats() {
  clearTimeout(statsTimer);
  if (document.visibilityState === "visible") refreshStats().finally(() => {
    statsTimer = setTimeout(pollStats, 5000);
  });
}

// ---- the API key

let keyWaiter = null;

function askForKey(reason) {
  const dialog = $("key-dialog");
  $("key-reason").textContent = reason || "This daemon asks for an API key.";
  $("key-input").value = "";
  $("key-button").hidden = false;
  if (!dialog.open) dialog.showModal();
  $("key-input").focus();
  return new Promise((resolve) => {
    if (keyWaiter) keyWaiter(false);
    keyWaiter = resolve;
  });
}

function answerKey(given) {
  const waiter = keyWaiter;
  keyWaiter = null;
  if (waiter) waiter(given);
}

function setUpKey() {
  setKeyPrompt(askForKey);
  const dialog = $("key-dialog");
  $("key-form").addEventListener("submit", () => {
    const key = $("key-input").value.trim();
    if (key) setApiKey(key);
    answerKey(Boolean(key));
    pollStats();
  });
  $("key-cancel").addEventListener("click", () => dialog.close());
  $("key-clear").addEventListener("click", () => {
    setApiKey("");
    dialog.close();
  });
  dialog.addEventListener("close", () => answerKey(false));
  $("key-button").addEventListener("click", () => askForKey("Change or forget the key of this tab."));
  $("key-button").hidden = !apiKey();
}

// ---- the keyboard

function typing(target) {
  return target.closest?.("input, textarea, select, [contenteditable]");
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target === $("q") && event.key === "ArrowDown") {
    event.preventDefault();
    focusFirstResult();
    return;
  }
  if (typing(event.target) || document.querySelector("dialog[open]")) return;
  if (event.key === "/") {
    event.preventDefault();
    const box = $("view-timeline").hidden ? $("q") : $("when");
    box.focus();
    box.select();
  } else if (event.key === "e" && !$("view-search").hidden) {
    $("explain").click();
  }
}

setUpViewer();
setUpSearch();
setUpTimeline();
setUpKey();
window.addEventListener("hashchange", route);
document.addEventListener("keydown", onKey);
document.addEventListener("visibilitychange", pollStats);
route();
pollStats();

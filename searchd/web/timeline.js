// The timeline view: a range by day (from `/api/timeline`), optionally filtered by a
// query, as a compact activity chart; clicking a day lists its files.

import { el, clear, dayToUnix, unixToDay, wallClock, snippetNodes, baseName } from "./dom.js";
import { api } from "./api.js";
import { openFile } from "./viewer.js";

const $ = (id) => document.getElementById(id);
const DEFAULT_WHEN = "last month";
let days = new Map();
let loaded = false;

export function setUpTimeline() {
  $("timeline-form").addEventListener("submit", (event) => {
    event.preventDefault();
    // Dates given: they win over the text.
    if ($("t-from").value || $("t-to").value) $("when").value = "";
    run();
  });
  for (const id of ["t-from", "t-to"]) {
    $(id).addEventListener("change", () => { $("when").value = ""; });
  }
  $("chart").addEventListener("keydown", onChartKey);
}

/** Shows the timeline (from `#timeline?when=…&q=…&from=…&to=…`). */
export function showTimeline(params) {
  const given = ["when", "q", "from", "to"].some((k) => params.has(k));
  if (given) {
    $("when").value = params.get("when") || "";
    $("tq").value = params.get("q") || "";
    $("t-from").value = params.get("from") || "";
    $("t-to").value = params.get("to") || "";
  } else if (loaded) {
    return;
  }
  if (!$("when").value && !$("t-from").value && !$("t-to").value) $("when").value = DEFAULT_WHEN;
  run(params.get("day"));
}

function requestBody() {
  const body = { query: $("tq").value.trim() };
  const when = $("when").value.trim();
  if (when) {
    body.when = when;
  } else {
    const start = dayToUnix($("t-from").value), end = dayToUnix($("t-to").value);
    if (start !== null) body.start = start;
    if (end !== null) body.end = end + 86400;
  }
  return body;
}

function hashOf(day) {
  const params = new URLSearchParams();
  const pairs = [["when", $("when").value.trim()], ["q", $("tq").value.trim()],
    ["from", $("t-from").value], ["to", $("t-to").value], ["day", day]];
  for (const [key, value] of pairs) if (value) params.set(key, value);
  return `#timeline?${params}`;
}

async function run(selectDay) {
  const status = $("timeline-status");
  status.className = "status busy";
  status.textContent = "Loading the timeline…";
  $("chart").setAttribute("aria-busy", "true");
  history.replaceState(null, "", hashOf());
  let reply;
  try {
    reply = await api("/api/timeline", { body: requestBody() });
  } catch (error) {
    status.className = "status error";
    status.textContent = error.message;
    $("chart").removeAttribute("aria-busy");
    return;
  }
  loaded = true;
  $("chart").removeAttribute("aria-busy");
  days = new Map((reply.days || []).map((d) => [d.date, d]));
  const files = (reply.days || []).reduce((n, d) => n + d.folders.reduce((m, f) => m + f.files.length, 0), 0);
  status.className = "status";
  status.textContent = `${reply.units_matched} units, ${files} file-days in ${days.size} active day${days.size === 1 ? "" : "s"} · ${reply.range}`
    + (reply.truncated ? " · truncated (narrow the range)" : "");
  const [first, last] = bounds(reply);
  drawChart(first, last);
  const wanted = selectDay && days.has(selectDay) ? selectDay : null;
  if (wanted) selectDayOf(wanted);
  else clear($("day")).append(el("p", { className: "muted", textContent: days.size ? "Pick a day to list its files." : "Nothing in this range." }));
}

/** The first and last day to draw: the range asked for, else the days found. */
function bounds(reply) {
  const [a, b] = String(reply.range || "").split("..");
  const dayOf = (text) => (/^\d{4}-\d{2}-\d{2}/.exec(text || "") || [null])[0];
  let first = dayOf(a), last = dayOf(b);
  // The end is exclusive: at midnight it is the day before.
  if (last && /[ T]00:00:00/.test(b)) last = unixToDay(dayToUnix(last) - 86400);
  const found = [...days.keys()].sort();
  if (!first || !last || dayToUnix(last) - dayToUnix(first) > 400 * 86400) {
    first = found[0];
    last = found[found.length - 1];
  }
  return [first, last];
}

function drawChart(first, last) {
  const chart = clear($("chart"));
  if (!first || !last) return;
  const max = Math.max(1, ...[...days.values()].map((d) => d.units));
  const count = Math.round((dayToUnix(last) - dayToUnix(first)) / 86400) + 1;
  const bars = el("div", { className: "bars", role: "group", "aria-label": `Units per day, ${first} to ${last}` });
  for (let i = 0; i < count; i += 1) {
    const date = unixToDay(dayToUnix(first) + i * 86400);
    const units = days.get(date)?.units || 0;
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    const bar = el("button", {
      type: "button", className: `bar${units ? "" : " empty"}${weekday === 0 || weekday === 6 ? " weekend" : ""}`,
      "data-date": date, "aria-label": `${date}: ${units} units`, title: `${date}: ${units} units`,
      tabIndex: units ? 0 : -1, disabled: !units,
    }, el("span", { className: "fill" }));
    bar.firstChild.style.height = `${units ? Math.max(6, (100 * units) / max) : 0}%`;
    bar.addEventListener("click", () => selectDayOf(date));
    bars.append(bar);
  }
  if (count <= 31) {
    const labels = el("div", { className: "day-labels", "aria-hidden": "true" });
    for (let i = 0; i < count; i += 1) {
      const date = new Date((dayToUnix(first) + i * 86400) * 1000);
      const text = count <= 10
        ? date.toLocaleDateString("en-GB", { weekday: "short", day: "numeric", timeZone: "UTC" })
        : String(date.getUTCDate());
      labels.append(el("span", { textContent: text }));
    }
    chart.append(bars, labels);
  } else {
    chart.append(bars);
  }
  const axis = el("div", { className: "axis" },
    el("span", { textContent: first }),
    el("span", { textContent: `max ${max} units/day` }),
    el("span", { textContent: last }));
  chart.append(axis);
}

function onChartKey(event) {
  if (!event.target.classList?.contains("bar")) return;
  const bars = [...document.querySelectorAll("#chart .bar:not(.empty)")];
  const index = bars.indexOf(event.target);
  const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
  if (!step) return;
  event.preventDefault();
  bars[Math.max(0, Math.min(bars.length - 1, index + step))]?.focus();
}

function selectDayOf(date) {
  for (const bar of document.querySelectorAll("#chart .bar")) {
    bar.classList.toggle("selected", bar.dataset.date === date);
    bar.setAttribute("aria-pressed", bar.dataset.date === date ? "true" : "false");
  }
  history.replaceState(null, "", hashOf(date));
  const day = days.get(date);
  const box = clear($("day"));
  if (!day) return;
  const weekday = new Date(`${date}T00:00:00Z`).toLocaleDateString("en-GB", { weekday: "long", timeZone: "UTC" });
  box.append(el("h2", { textContent: `${weekday} ${date} · ${day.units} units` }));
  for (const folder of day.folders) {
    const list = el("ul", { className: "day-files" });
    for (const file of folder.files) list.append(dayFile(file));
    box.append(el("section", { className: "day-folder" },
      el("h3", { textContent: folder.folder || "(profile root)" }), list));
  }
}

function dayFile(file) {
  const first = file.first || {};
  const name = baseName(file.path);
  const open = el("button", { type: "button", className: "file-name", textContent: name, title: `Open ${file.path}` });
  open.addEventListener("click", () => openFile(file.path, first.unit_id));
  const time = wallClock(first.content_time).slice(11);
  return el("li", { className: "day-file", "data-path": file.path },
    el("div", {}, el("span", { className: "time muted", textContent: time }), " ", open, " ",
      el("span", { className: "muted", textContent: [file.title && file.title !== name ? file.title : null, `${file.units} unit${file.units === 1 ? "" : "s"}`, file.activity?.length ? file.activity.join(", ") : null].filter(Boolean).join(" · ") })),
    el("p", { className: "snippet" }, snippetNodes(first.snippet)));
}

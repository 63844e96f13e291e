// The whole file (every unit, like HippoCamp's return_txt) in a dialog, scrolled to the
// unit that was clicked.

import { el, clear, bytes, baseName } from "./dom.js";
import { api, encodePath, fileUrl } from "./api.js";
import { fromSegment, locatorText, sideEvidence, inlineEvidence } from "./evidence.js";

const dialog = () => document.getElementById("viewer");
let current = null;

export function setUpViewer() {
  const box = dialog();
  document.getElementById("viewer-close").addEventListener("click", () => box.close());
  document.getElementById("viewer-original").addEventListener("click", async () => {
    if (!current) return;
    try {
      window.open(await fileUrl(current), "_blank", "noopener");
    } catch (error) {
      document.getElementById("viewer-meta").textContent = `cannot open: ${error.message}`;
    }
  });
  // A click on the backdrop closes the dialog.
  box.addEventListener("click", (event) => {
    if (event.target === box) box.close();
  });
  box.addEventListener("close", () => {
    // The close event comes a task later: the viewer may have been opened again.
    if (box.open) return;
    current = null;
    clear(document.getElementById("viewer-body"));
    if (returnFocus && returnFocus.isConnected) returnFocus.focus();
  });
}

let returnFocus = null;

/** Opens `path`, scrolled to the unit `unitId` (when given). */
export async function openFile(path, unitId) {
  const box = dialog();
  const body = clear(document.getElementById("viewer-body"));
  const title = document.getElementById("viewer-title");
  const meta = document.getElementById("viewer-meta");
  if (!box.open) returnFocus = document.activeElement;
  current = path;
  title.textContent = baseName(path);
  meta.textContent = path;
  body.append(el("p", { className: "loading-line", textContent: "Loading the file…" }));
  body.setAttribute("aria-busy", "true");
  if (!box.open) box.showModal();
  let data;
  try {
    data = (await api(`/api/return_txt_full/${encodePath(path)}`)).data;
  } catch (error) {
    clear(body).append(el("p", { className: "error", textContent: `Cannot open ${path}: ${error.message}` }));
    body.removeAttribute("aria-busy");
    return;
  }
  if (current !== path) return;
  const info = data.file_info || {};
  const facts = [info.file_path, info.file_type, info.file_modality,
    info.size !== undefined ? bytes(info.size) : null, info.modification_date,
    info.author ? `by ${info.author}` : null, `${(data.segments || []).length} units`];
  meta.textContent = facts.filter(Boolean).join(" · ");
  clear(body);
  body.removeAttribute("aria-busy");
  if (data.summary && data.summary !== info.title) {
    body.append(el("p", { className: "summary", textContent: data.summary }));
  }
  let target = null;
  for (const segment of data.segments || []) {
    const u = fromSegment(info, segment);
    const side = sideEvidence(u);
    const inline = u.kind === "rows" ? inlineEvidence(u) : null;
    const section = el("section", { className: "segment", tabIndex: -1, "data-unit-id": u.unitId || "" },
      el("div", { className: "locator", textContent: locatorText(u) }),
      u.title && u.kind !== "rows" ? el("h3", { textContent: u.title }) : null,
      el("div", { className: "segment-body" },
        inline || el("pre", { className: "text", textContent: u.text }),
        side));
    if (unitId && u.unitId === unitId) {
      section.classList.add("target");
      target = section;
    }
    body.append(section);
  }
  if (!(data.segments || []).length) {
    body.append(el("p", { className: "muted", textContent: "This file has no text units." }));
  }
  if (target) {
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }
}

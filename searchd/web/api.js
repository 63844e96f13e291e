// The daemon's JSON API, with the optional API key (kept in sessionStorage, sent as
// `Authorization: Bearer`). A 401 asks for a key and retries.

const KEY_NAME = "dentate-api-key";

/** An error reply (or a network failure: status 0). */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let keyPrompt = null;

/** Sets the function that asks the person for a key: `(reason) => Promise<boolean>`
 * (true when a key was given). */
export function setKeyPrompt(prompt) {
  keyPrompt = prompt;
}

export function apiKey() {
  try {
    return sessionStorage.getItem(KEY_NAME) || "";
  } catch {
    return "";
  }
}

export function setApiKey(key) {
  try {
    if (key) sessionStorage.setItem(KEY_NAME, key);
    else sessionStorage.removeItem(KEY_NAME);
  } catch {
    // Storage disabled: the key lives as long as nothing asks again.
  }
}

function headers(json) {
  const h = { Accept: "application/json" };
  if (json) h["Content-Type"] = "application/json";
  const key = apiKey();
  if (key) h.Authorization = `Bearer ${key}`;
  return h;
}

async function errorOf(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && typeof body.error === "string") message = body.error;
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(response.status, message);
}

/** A request that asks for a key on 401 and tries again (until the prompt is
 * cancelled). Returns the Response. */
async function authorized(path, init) {
  for (;;) {
    let response;
    try {
      response = await fetch(path, { ...init, headers: headers(init.body !== undefined) });
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new ApiError(0, `the daemon did not answer (${error.message})`);
    }
    if (response.status !== 401) return response;
    const error = await errorOf(response);
    if (!keyPrompt || !(await keyPrompt(apiKey() ? "The key was not accepted." : error.message))) {
      throw error;
    }
  }
}

/** GET or POST JSON; resolves with the parsed reply. HippoCamp-style replies with
 * `success: false` become errors too. */
export async function api(path, { body, signal } = {}) {
  const init = body === undefined
    ? { method: "GET", signal }
    : { method: "POST", body: JSON.stringify(body), signal };
  const response = await authorized(path, init);
  if (!response.ok) throw await errorOf(response);
  const reply = await response.json();
  if (reply && reply.success === false) throw new ApiError(response.status, reply.error || "failed");
  return reply;
}

/** A profile path in a URL: every segment percent-encoded (`#`, `?`, `%` too). */
export function encodePath(path) {
  return String(path).split("/").map(encodeURIComponent).join("/");
}

function blobOfBase64(b64, type) {
  const raw = atob(b64);
  const data = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) data[i] = raw.charCodeAt(i);
  return new Blob([data], { type });
}

// Rendering runs pdftoppm or ffmpeg on the daemon: two at a time, each once.
const renders = new Map();
const waiting = [];
let running = 0;

function nextRender() {
  while (running < 2 && waiting.length) {
    const job = waiting.shift();
    running += 1;
    job().finally(() => {
      running -= 1;
      nextRender();
    });
  }
}

/** A rendering of a file (an image, a PDF page, a video frame at `second`) as a `blob:`
 * URL, from `/api/return_img`. Cached per page/second. */
export function renderUrl(path, { page, second } = {}) {
  const query = new URLSearchParams();
  if (page) query.set("page", String(page));
  if (second !== undefined && second !== null) query.set("second", String(second));
  const url = `/api/return_img/${encodePath(path)}${query.toString() ? `?${query}` : ""}`;
  if (!renders.has(url)) {
    const promise = new Promise((resolve, reject) => {
      waiting.push(() => api(url)
        .then((reply) => resolve(URL.createObjectURL(
          blobOfBase64(reply.image_b64, reply.content_type || "image/jpeg"))))
        .catch((error) => {
          renders.delete(url);
          reject(error);
        }));
      nextRender();
    });
    renders.set(url, promise);
  }
  return renders.get(url);
}

/** The original file as a URL the page can use in `<audio>`, `<video>` or a link:
 * served directly without a key; with a key, fetched (with the header) into a `blob:`
 * URL, since media elements cannot send headers. */
export async function fileUrl(path) {
  const direct = `/api/serve_file/${encodePath(path)}`;
  if (!apiKey()) return direct;
  const response = await authorized(direct, { method: "GET" });
  if (!response.ok) throw await errorOf(response);
  return URL.createObjectURL(await response.blob());
}

// The page's only way to the server: JSON under /studio/api, the CSRF token on every write.

const csrf = document.querySelector('meta[name="csrf-token"]').content;
// A read-only server (`serve --read-only`) saves nothing: the page offers no form to create.
export const READ_ONLY = document.querySelector('meta[name="read-only"]')?.content === "true";

export class ApiError extends Error {
  constructor(status, body) {
    super(body.error || `the server answered ${status}`);
    this.status = status;
    this.code = body.code || "";
    this.body = body;
  }
}

export const OFFLINE = "offline";

// A request that got no answer at all (the server stopped, or hangs) as an ApiError that says so,
// not the browser's bare "Failed to fetch".
async function reach(url, options) {
  try {
    return await fetch(url, options);
  } catch (error) {
    const message = "Studio's server is not answering: is `remecli serve` (or `remecli studio`) still running?";
    throw new ApiError(0, { error: message, code: OFFLINE, cause: String(error) });
  }
}

async function answer(response) {
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = { error: `the server answered ${response.status} without JSON` };
  }
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

export async function get(name, params = {}, signal = undefined) {
  const query = new URLSearchParams(params).toString();
  const response = await reach(`/studio/api/${name}?${query}`, {
    credentials: "same-origin",
    signal,
  });
  return answer(response);
}

export async function post(name, body) {
  const response = await reach(`/studio/api/${name}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
  return answer(response);
}

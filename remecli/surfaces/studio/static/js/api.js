// The page's only way to the server: JSON under /studio/api, the CSRF token on every write.

const csrf = document.querySelector('meta[name="csrf-token"]').content;

export class ApiError extends Error {
  constructor(status, body) {
    super(body.error || `the server answered ${status}`);
    this.status = status;
    this.code = body.code || "";
    this.body = body;
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
  const response = await fetch(`/studio/api/${name}?${query}`, {
    credentials: "same-origin",
    signal,
  });
  return answer(response);
}

export async function post(name, body) {
  const response = await fetch(`/studio/api/${name}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
  return answer(response);
}

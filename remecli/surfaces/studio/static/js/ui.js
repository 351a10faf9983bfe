// Shared page actions: go to a page, say something in the status line.

let router = () => {};

export function onRoute(route) {
  router = route;
}

export function navigate(hash, { replace = false } = {}) {
  if (replace) {
    history.replaceState(null, "", hash);
    router();
  } else {
    location.hash = hash;
  }
}

export function flash(text, kind = "ok") {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = kind;
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => {
    status.textContent = "";
  }, 6000);
}


// Shared page actions: go to a page, say something in the status line.

let router = () => {};
let redrawNav = () => Promise.resolve();

export function onRoute(route) {
  router = route;
}

export function onNavChange(redraw) {
  redrawNav = redraw;
}

// After a write of this page that adds, moves or removes a note: the navigator's counts now,
// not at the next change the live poll sees (it skips the tick on which the open page changes).
export function navChanged() {
  redrawNav().catch(() => {});
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


let unsaved = null; // the editor's "are there unsaved changes?" while it is open

export function guardUnsaved(check) {
  unsaved = check;
}

export function mayLeave() {
  if (!unsaved || !unsaved()) return true;
  if (!window.confirm("Leave the editor? Your unsaved changes will be lost.")) return false;
  unsaved = null;
  return true;
}

window.addEventListener("beforeunload", (event) => {
  if (unsaved && unsaved()) event.preventDefault();
});

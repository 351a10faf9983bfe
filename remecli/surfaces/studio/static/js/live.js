// Live pages: poll the server's change stamp (memory_stamp: folder and file times, no file is
// read); when it moves, the navigator and the open page are drawn again. The editor is never
// redrawn under the user: it says the file changed instead (a save then shows both versions).
//
// When the server does not answer (stopped, restarting, hanging) a banner says so and the polls
// back off (1 s, 2 s, 4 s … 30 s; "Try now" at once); when it answers again the page is drawn
// anew, or, if the server restarted and forgot this login, the banner says how to log in.

import { ApiError, OFFLINE, get } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const EVERY_MS = 600;
const LONGEST_WAIT_MS = 30_000;
const POLL_TIMEOUT_MS = 10_000;

function banner() {
  const text = h("span", { class: "connection-text" });
  const retry = h("button", { type: "button", class: "secondary", id: "connection-retry" }, t("Try now"));
  const box = h("div", { id: "connection", class: "connection", role: "alert", hidden: true }, text, " ", retry);
  document.querySelector("header.top").after(box);
  return { box, text, retry };
}

export function startLive({ currentPath, redraw, redrawNav }) {
  let last = null;
  let failures = 0; // polls in a row that got no answer (or a logged-out one)
  let loggedOut = false;
  let timer = null;
  const shown = banner();

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(tick, ms);
  }

  function say(message, waitMs) {
    shown.text.textContent = waitMs ? `${message} ${t("Trying again in")} ${Math.round(waitMs / 1000)} s.` : message;
    shown.box.hidden = false;
    document.body.dataset.connection = loggedOut ? "logged-out" : "gone";
  }

  async function tick() {
    if (document.hidden && !failures) return schedule(EVERY_MS);
    try {
      const path = currentPath();
      const { stamp } = await get("stamp", path ? { path } : {}, AbortSignal.timeout(POLL_TIMEOUT_MS));
      const key = `${path}|${stamp}`;
      if (loggedOut) {
        location.reload(); // logged in again (another tab): this page's CSRF token is stale
        return;
      }
      if (failures) {
        failures = 0;
        shown.box.hidden = true;
        delete document.body.dataset.connection;
        await Promise.all([redrawNav(), redraw()]); // whatever changed while it was away
      } else if (last !== null && last.split("|")[0] === path && last !== key) {
        await Promise.all([redrawNav(), redraw()]);
        document.body.dataset.liveUpdates = String(Number(document.body.dataset.liveUpdates || 0) + 1);
      }
      last = key;
    } catch (error) {
      if (error instanceof ApiError && (error.code === OFFLINE || error.code === "login")) {
        failures += 1;
        loggedOut = error.code === "login";
        const wait = Math.min(LONGEST_WAIT_MS, 1000 * 2 ** (failures - 1));
        if (loggedOut) say(t("Logged out: the server restarted. Run `remecli studio` for a new login link."), wait);
        else say(t("Studio's server is not answering (stopped?)."), wait);
        return schedule(wait);
      }
      // another refusal (a server error): the next tick tries again
    }
    schedule(EVERY_MS);
  }

  shown.retry.addEventListener("click", () => schedule(0));
  tick();
}

// Studio's router: the part after `#` names the page; each page module renders into <main>.

import { ApiError } from "./api.js";
import { fill, h } from "./dom.js";
import { renderNav, renderSection } from "./nav.js";
import { renderNote } from "./note.js";
import { renderEditor } from "./editor.js";
import { renderHistory } from "./history.js";
import { bindSearch, renderSearch } from "./search.js";
import { renderCreate } from "./manage.js";
import { isTranscript, renderSession } from "./session.js";
import { renderHealth } from "./health.js";
import { renderInterests } from "./interests.js";
import { renderChanged } from "./changed.js";
import { renderGraph } from "./graph.js";
import { startLive } from "./live.js";
import { bindLanguage, t, translateStatic } from "./i18n.js";
import { bindTheme } from "./theme.js";
import { guardUnsaved, mayLeave, onNavChange, onRoute } from "./ui.js";

const main = document.getElementById("main");
let current = 0; // the newest route: older pages that finish late draw nothing

function parse() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = raw.split("?");
  const params = new URLSearchParams(query);
  const [, page = "", ...rest] = path.split("/");
  return { page, arg: decodeURI(rest.join("/")), params };
}

function showError(error) {
  const loggedOut = error instanceof ApiError && error.code === "login";
  fill(main,
    h(
      "div",
      { class: "error-box" },
      h("h1", {}, loggedOut ? t("Logged out") : t("Something went wrong")),
      h("p", {}, error.message),
      loggedOut ? h("pre", { class: "command" }, "remecli studio") : null,
    ),
  );
}

let shown = location.hash;

async function route() {
  const moved = location.hash !== shown; // a new address, not a live redraw of this one
  if (moved && !mayLeave()) {
    history.replaceState(null, "", shown || "#/"); // stay in the editor
    return;
  }
  shown = location.hash;
  guardUnsaved(null);
  const token = ++current;
  const live = () => token === current;
  const { page, arg, params } = parse();
  if (moved && page !== "search") document.getElementById("search").value = ""; // no stale query
  try {
    if (page === "section") await renderSection(main, arg, params, live);
    else if (page === "note" && isTranscript(arg)) await renderSession(main, arg, params, live);
    else if (page === "note" || page === "raw") await renderNote(main, arg, params, live);
    else if (page === "edit") await renderEditor(main, arg, live);
    else if (page === "new") renderCreate(main, params);
    else if (page === "health") await renderHealth(main, live);
    else if (page === "interests") await renderInterests(main, live);
    else if (page === "changed") await renderChanged(main, live);
    else if (page === "graph") await renderGraph(main, params, live);
    else if (page === "history") await renderHistory(main, arg, live);
    else if (page === "search") await renderSearch(main, params.get("q") || "", params.get("source") || "", live, params.get("as_of") || "");
    else await renderNote(main, "MEMORY.md", params, live);
  } catch (error) {
    if (live()) showError(error);
  }
  markActive();
}

function markActive() {
  document.querySelectorAll("#nav a").forEach((a) => {
    a.classList.toggle("active", location.hash.startsWith(a.getAttribute("href")));
  });
}

function currentPath() {
  const { page, arg } = parse();
  return ["note", "edit", "history", "raw"].includes(page) ? arg : "";
}

async function redraw() {
  const { page } = parse();
  if (page === "new" || document.querySelector(".manage-panel:not([hidden])")) return;
  if (document.querySelector("[data-confirm-restore]")) return; // a question waits for the user's answer
  if (page === "edit") {
    const notice = document.querySelector(".changed-on-disk");
    if (notice) notice.hidden = false;
    return;
  }
  const scroll = window.scrollY;
  await route();
  window.scrollTo(0, scroll);
}

translateStatic();
bindTheme(document.getElementById("theme"));
bindLanguage(document.getElementById("language"));
onRoute(route);
// first: a hash change drops the search box's waiting keystrokes before the page is drawn
bindSearch(document.getElementById("search"), document.getElementById("search-source"));
window.addEventListener("hashchange", route);
const nav = document.getElementById("nav");
const redrawNav = () => renderNav(nav).then(markActive);
onNavChange(redrawNav);
renderNav(nav).catch(showError);
route();
startLive({ currentPath, redraw, redrawNav });

// Search as you type: the box waits for a pause, then shows the hits; a hit opens at its line.

import { get } from "./api.js";
import { debounce, fill, h, noteHref, pathText } from "./dom.js";
import { t } from "./i18n.js";
import { navigate } from "./ui.js";

let typing = false; // keystrokes wait in the box: a redraw must not replace them

export function bindSearch(input, source) {
  const go = debounce(() => {
    typing = false;
    const q = input.value.trim();
    if (!q) return;
    const params = new URLSearchParams({ q });
    if (source.value) params.set("source", source.value);
    navigate(`#/search?${params}`, { replace: location.hash.startsWith("#/search") });
  }, 250);
  input.addEventListener("input", () => {
    typing = true;
    go();
  });
  source.addEventListener("change", go);
  // the user went elsewhere (a link, Back): what they typed just before must not pull them back
  window.addEventListener("hashchange", () => {
    typing = false;
    go.cancel();
  });
  document.addEventListener("keydown", (event) => {
    const editing = ["INPUT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (event.key === "/" && !editing) {
      event.preventDefault();
      input.focus();
    }
  });
}

export async function renderSearch(main, q, source, live) {
  const input = document.getElementById("search");
  if (!typing && input.value.trim() !== q) input.value = q; // the box says what these are for
  document.getElementById("search-source").value = source;
  if (!q) {
    fill(main, h("p", { class: "muted" }, t("Type in the search box.")));
    return;
  }
  const data = await get("search", source ? { q, source } : { q });
  if (!live()) return;
  const hits = data.results.map((hit) =>
    h(
      "li",
      { class: "hit" },
      h(
        "div",
        { class: "hit-head" },
        h(
          "a",
          { href: noteHref(hit.path, { line: hit.start_line, end: hit.end_line }) },
          h("span", { class: "hit-path" }, pathText(hit.path)),
          h("span", { class: "meta" }, ` lines ${hit.start_line}–${hit.end_line}`),
        ),
        h(
          "span",
          { class: "score", title: "fused score, and the signals that found this hit" },
          `${(hit.signals || []).join(" + ")} ${Number(hit.score || 0).toFixed(3)}`,
          hit.weak ? h("span", { class: "weak", title: t("barely matches the search") }, ` ${t("weak")}`) : null,
        ),
      ),
      hit.heading_path || hit.name ? h("div", { class: "hit-name" }, hit.heading_path || hit.name) : null,
      h("p", { class: "snippet" }, hit.snippet || ""),
    ),
  );
  fill(main,
    h("h1", {}, t("Search"), ` “${q}” `, h("span", { class: "count" }, String(hits.length))),
    hits.length ? h("ol", { class: "hits" }, hits) : h("p", { class: "muted" }, `${t("Nothing found for")} “${q}”.`),
  );
}

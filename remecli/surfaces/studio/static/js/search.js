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
    const asOf = new URLSearchParams(location.hash.split("?")[1] || "").get("as_of");
    if (asOf && location.hash.startsWith("#/search")) params.set("as_of", asOf); // kept while typing
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

// A hit's timed claims (notes/claims): superseded on the day asked, or which one held then.
function claimTag(hit, asOf) {
  if (hit.superseded) {
    const gone = hit.superseded.not_yet
      ? t("not yet true then")
      : `${t("superseded")} ${hit.superseded.until}`;
    const by = hit.superseded.replaced_by ? ` → ${hit.superseded.replaced_by}` : "";
    return h("span", { class: "superseded", title: `${gone}${by}` }, ` ${gone}${by}`);
  }
  const valid = (hit.claims || []).filter((claim) => claim.valid);
  if (!valid.length) return null;
  const label = asOf ? `${t("true on")} ${asOf}` : t("current");
  return h("div", { class: "hit-claims" }, `${label}: `, valid.map((claim) => claim.text).join("; "));
}

function asOfPicker(q, source, asOf) {
  const go = (event) => {
    const params = new URLSearchParams({ q });
    if (source) params.set("source", source);
    if (event.target.value) params.set("as_of", event.target.value);
    navigate(`#/search?${params}`, { replace: true });
  };
  return h(
    "label",
    { class: "as-of", title: t("what was true on that day: claims valid then rank first") },
    `${t("As of")} `,
    h("input", { type: "date", id: "search-as-of", value: asOf || "", onchange: go }),
  );
}

export async function renderSearch(main, q, source, live, asOf = "") {
  const input = document.getElementById("search");
  if (!typing && input.value.trim() !== q) input.value = q; // the box says what these are for
  document.getElementById("search-source").value = source;
  if (!q) {
    fill(main, h("p", { class: "muted" }, t("Type in the search box.")));
    return;
  }
  const query = { q };
  if (source) query.source = source;
  if (asOf) query.as_of = asOf;
  const data = await get("search", query);
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
      claimTag(hit, asOf),
      h("p", { class: "snippet" }, hit.snippet || ""),
    ),
  );
  fill(main,
    h("h1", {}, t("Search"), ` “${q}” `, h("span", { class: "count" }, String(hits.length))),
    asOfPicker(q, source, asOf),
    hits.length ? h("ol", { class: "hits" }, hits) : h("p", { class: "muted" }, `${t("Nothing found for")} “${q}”.`),
  );
}

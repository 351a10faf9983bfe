// The Graph page: the digest's or the whole memory's link graph (memory_graph), or one note's
// neighbourhood (1 or 2 hops), drawn on a canvas; contradicted digest nodes are marked.

import { get } from "./api.js";
import { fill, h, noteHref } from "./dom.js";
import { GraphView } from "./graph_view.js";
import { t } from "./i18n.js";
import { navigate } from "./ui.js";

const KIND_NAMES = {
  memory: "MEMORY.md",
  day: "day page",
  card: "card",
  personal: "personal",
  procedure: "procedure",
  wiki: "wiki",
  note: "other note",
};

export function graphHref({ scope = "digest", focus = "", depth = 1 } = {}) {
  const query = new URLSearchParams({ scope });
  if (focus) {
    query.set("focus", focus);
    query.set("depth", String(depth));
  }
  return `#/graph?${query}`;
}

function scopeSwitch(scope, focus) {
  const choice = (value, label) =>
    h(
      "a",
      { class: `button${scope === value && !focus ? "" : " secondary"}`, href: graphHref({ scope: value }), "data-scope": value },
      t(label),
    );
  return h("div", { class: "segmented" }, choice("digest", "Digest"), choice("all", "Whole memory"));
}

function focusForm(data, scope, depth) {
  const names = h("datalist", { id: "graph-notes" }, data.nodes.map((n) => h("option", { value: n.path }, n.name)));
  const input = h("input", {
    id: "graph-focus",
    type: "search",
    list: "graph-notes",
    value: data.focus || "",
    placeholder: t("Focus on a note…"),
    "aria-label": t("Focus on a note…"),
    autocomplete: "off",
  });
  const hops = h(
    "select",
    { id: "graph-depth", "aria-label": t("Hops") },
    h("option", { value: "1", selected: depth === 1 }, t("1 hop")),
    h("option", { value: "2", selected: depth === 2 }, t("2 hops")),
  );
  const form = h(
    "form",
    { class: "graph-focus" },
    input,
    names,
    hops,
    h("button", { type: "submit", class: "secondary" }, t("Focus")),
    data.focus ? h("a", { class: "button secondary", href: graphHref({ scope }), id: "graph-all" }, t("Show all")) : null,
  );
  const go = () => {
    const focus = input.value.trim();
    if (focus) navigate(graphHref({ scope, focus, depth: Number(hops.value) }));
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    go();
  });
  hops.addEventListener("change", () => data.focus && go());
  return form;
}

function legend(nodes) {
  const present = new Set(nodes.map((n) => n.kind));
  const kinds = Object.keys(KIND_NAMES).filter((k) => present.has(k));
  return h(
    "ul",
    { class: "graph-legend" },
    kinds.map((k) => h("li", {}, h("span", { class: `dot kind-${k}` }), t(KIND_NAMES[k]))),
    nodes.some((n) => n.status === "contradicted")
      ? h("li", {}, h("span", { class: "dot contradicted" }), t("contradicted"))
      : null,
  );
}

function summary(data) {
  const contradicted = data.nodes.filter((n) => n.status === "contradicted").length;
  const parts = [`${data.nodes.length} ${t("notes")}`, `${data.edges.length} ${t("links")}`];
  if (contradicted) parts.push(`${contradicted} ${t("contradicted")}`);
  const cut = data.truncated ? ` ${t("(the most linked of")} ${data.total})` : "";
  return h("p", { class: "muted small graph-summary" }, parts.join(" · ") + cut);
}

function contradictedList(nodes) {
  const marked = nodes.filter((n) => n.status === "contradicted");
  if (!marked.length) return null;
  return h(
    "section",
    { class: "link-panel graph-contradicted" },
    h("h2", {}, t("Contradicted"), " ", h("span", { class: "count" }, String(marked.length))),
    h("ul", {}, marked.map((n) => h("li", {}, h("a", { href: noteHref(n.path) }, n.name), h("span", { class: "path" }, n.path)))),
  );
}

export async function renderGraph(main, params, live) {
  const scope = params.get("scope") === "all" ? "all" : "digest";
  const focus = params.get("focus") || "";
  const depth = params.get("depth") === "2" ? 2 : 1;
  const query = focus ? { scope, focus, depth } : { scope };
  const data = await get("graph", query);
  if (!live()) return;
  const title = data.focus ? `${t("Around")} ${data.focus}` : scope === "all" ? t("Whole memory") : t("Digest");
  const canvas = h("canvas", { id: "graph-canvas", "aria-label": t("Link graph"), "data-nodes": data.nodes.length });
  const empty = !data.nodes.length;
  fill(main,
    h("div", { class: "graph-head" }, h("h1", {}, t("Graph"), ": ", title), scopeSwitch(scope, data.focus), focusForm(data, scope, depth)),
    h("div", { class: "graph-info" }, summary(data), legend(data.nodes)),
    empty
      ? h("p", { class: "muted" }, t("No notes here yet: the digest fills as Auto Dream consolidates cards."))
      : h("div", { class: "graph-box" }, canvas),
    empty ? null : h("p", { class: "muted small" }, t("Click a note to open it; Shift+click to focus on its neighbourhood; drag to move; the wheel zooms.")),
    contradictedList(data.nodes),
  );
  if (empty) return;
  canvas.studioGraph = new GraphView(canvas, data, {
    onOpen: (path) => navigate(noteHref(path)),
    onFocus: (path) => navigate(graphHref({ scope, focus: path, depth })),
  });
}

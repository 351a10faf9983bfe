// The navigator (sections with counts) and a section's list of files.

import { get } from "./api.js";
import { bytes, fill, h, noteHref, pathText, when } from "./dom.js";
import { t } from "./i18n.js";

export async function renderNav(nav) {
  const data = await get("nav");
  const items = data.sections.map((s) => {
    const href = s.key === "memory" ? noteHref("MEMORY.md") : `#/section/${s.key}`;
    const count = `${s.count}${s.count_is_floor ? "+" : ""}`;
    return h(
      "li",
      {},
      h("a", { href, "data-section": s.key }, h("span", {}, t(s.title)), h("span", { class: "count" }, count)),
    );
  });
  fill(nav,
    h("h2", {}, t("Memory")),
    h("ul", { class: "sections" }, items),
    h("h2", {}, "Studio"),
    h(
      "ul",
      { class: "sections" },
      h("li", {}, h("a", { href: "#/graph", "data-page": "graph" }, h("span", {}, t("Graph")))),
      h("li", {}, h("a", { href: "#/interests", "data-page": "interests" }, h("span", {}, t("Interests")))),
      h("li", {}, h("a", { href: "#/changed", "data-page": "changed" }, h("span", {}, t("Changed facts")))),
      h("li", {}, h("a", { href: "#/health", "data-page": "health" }, h("span", {}, t("Health")))),
      h("li", {}, h("a", { href: "/dream", id: "dream-review" }, h("span", {}, t("Dream review")))),
    ),
    data.read_only
      ? h("p", { class: "muted small" }, t("read-only server: no edits"))
      : h("a", { class: "button new-note", href: "#/new", id: "new-note" }, t("+ New note")),
  );
}

function label(section, path) {
  if (section === "cards" || section === "days") return path.replace(/^memory\//, "");
  if (section === "digest") return path.replace(/^digest\//, "");
  if (section === "resources") return path.replace(/^resource\//, "");
  if (section === "sessions") return path.replace(/^sessions\//, "");
  return path;
}

function choices(files, field) {
  const counts = new Map();
  for (const f of files) for (const value of f[field] || []) counts.set(value, (counts.get(value) || 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

function filterSelect(id, label, everything, options, chosen) {
  return h(
    "select",
    { id, "aria-label": label },
    h("option", { value: "" }, everything),
    options.map(([value, count]) => h("option", { value, selected: value === chosen }, `${value} (${count})`)),
  );
}

export async function renderSection(main, key, params, live) {
  const data = await get("section", { section: key });
  if (!live()) return;
  const tag = params.get("tag") || "";
  const project = params.get("project") || "";
  const tags = choices(data.files, "tags");
  const projects = choices(data.files, "projects");
  const shown = data.files.filter(
    (f) => (!tag || (f.tags || []).includes(tag)) && (!project || (f.projects || []).includes(project)),
  );
  const row = (f) =>
    h(
      "li",
      {},
      f.name // a note with a title: the title, its path below it
        ? h("span", { class: "file-title" }, h("a", { href: noteHref(f.path) }, f.name), h("span", { class: "path" }, pathText(label(key, f.path))))
        : h("a", { href: noteHref(f.path) }, pathText(label(key, f.path))),
      h(
        "span",
        { class: "meta" },
        (f.projects || []).map((p) => h("span", { class: "chip project" }, p)),
        (f.tags || []).map((t) => h("span", { class: "chip" }, `#${t}`)),
        `${when(f.modified)} · ${bytes(f.size)}`,
      ),
    );
  const groups = new Map(); // the digest by kind (personal, procedure, wiki); others: one list
  for (const f of shown) {
    const group = key === "digest" ? label(key, f.path).split("/").slice(0, -1).join("/") : "";
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(f);
  }
  const rows = [...groups.entries()].map(([group, files]) => [
    group ? h("h2", { class: "group" }, group) : null,
    h("ul", { class: "files" }, files.map(row)),
  ]);
  const filters = tags.length || projects.length
    ? h(
        "div",
        { class: "filters" },
        projects.length ? filterSelect("filter-project", t("Project"), t("All projects"), projects, project) : null,
        tags.length ? filterSelect("filter-tag", t("Tag"), t("All tags"), tags, tag) : null,
      )
    : null;
  filters?.addEventListener("change", () => {
    const next = new URLSearchParams();
    const p = filters.querySelector("#filter-project")?.value;
    const g = filters.querySelector("#filter-tag")?.value;
    if (p) next.set("project", p);
    if (g) next.set("tag", g);
    const query = next.toString();
    location.hash = `#/section/${key}${query ? "?" + query : ""}`;
  });
  fill(main,
    h("h1", {}, t(data.title), " ", h("span", { class: "count" }, String(shown.length))),
    filters,
    data.truncated ? h("p", { class: "muted" }, t("Only the first files are listed.")) : null,
    rows.length ? rows : h("p", { class: "muted" }, t("Nothing here yet.")),
  );
}

// The navigator (sections with counts) and a section's list of files.

import { get } from "./api.js";
import { bytes, fill, h, noteHref, when } from "./dom.js";

export async function renderNav(nav) {
  const data = await get("nav");
  const items = data.sections.map((s) => {
    const href = s.key === "memory" ? noteHref("MEMORY.md") : `#/section/${s.key}`;
    const count = `${s.count}${s.count_is_floor ? "+" : ""}`;
    return h(
      "li",
      {},
      h("a", { href, "data-section": s.key }, h("span", {}, s.title), h("span", { class: "count" }, count)),
    );
  });
  fill(nav,
    h("h2", {}, "Memory"),
    h("ul", { class: "sections" }, items),
    h("h2", {}, "Studio"),
    h(
      "ul",
      { class: "sections" },
      h("li", {}, h("a", { href: "#/health", "data-page": "health" }, h("span", {}, "Health"))),
    ),
    data.read_only
      ? h("p", { class: "muted small" }, "read-only server: no edits")
      : h("a", { class: "button new-note", href: "#/new", id: "new-note" }, "+ New note"),
  );
}

function label(section, path) {
  if (section === "cards" || section === "days") return path.replace(/^memory\//, "");
  if (section === "digest") return path.replace(/^digest\//, "");
  if (section === "resources") return path.replace(/^resource\//, "");
  if (section === "sessions") return path.replace(/^sessions\//, "");
  return path;
}

export async function renderSection(main, key, live) {
  const data = await get("section", { section: key });
  if (!live()) return;
  const row = (f) =>
    h(
      "li",
      {},
      h("a", { href: noteHref(f.path) }, label(key, f.path)),
      h("span", { class: "meta" }, `${when(f.modified)} · ${bytes(f.size)}`),
    );
  const groups = new Map(); // the digest by kind (personal, procedure, wiki); others: one list
  for (const f of data.files) {
    const group = key === "digest" ? label(key, f.path).split("/").slice(0, -1).join("/") : "";
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(f);
  }
  const rows = [...groups.entries()].map(([group, files]) => [
    group ? h("h2", { class: "group" }, group) : null,
    h("ul", { class: "files" }, files.map(row)),
  ]);
  fill(main,
    h("h1", {}, data.title, " ", h("span", { class: "count" }, String(data.files.length))),
    data.truncated ? h("p", { class: "muted" }, "Only the first files are listed.") : null,
    rows.length ? rows : h("p", { class: "muted" }, "Nothing here yet."),
  );
}

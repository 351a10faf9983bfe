// A note: rendered Markdown (wikilinks are links), frontmatter as fields, links and backlinks.

import { get } from "./api.js";
import { h, noteHref, serverHtml } from "./dom.js";

function linkList(title, notes, empty) {
  const items = notes.map((n) =>
    h(
      "li",
      {},
      h("a", { href: noteHref(n.path) }, n.name || n.path),
      n.description ? h("span", { class: "meta" }, n.description) : null,
      h("span", { class: "path" }, n.path),
    ),
  );
  return h(
    "section",
    { class: "link-panel" },
    h("h2", {}, title, " ", h("span", { class: "count" }, String(notes.length))),
    items.length ? h("ul", {}, items) : h("p", { class: "muted small" }, empty),
  );
}

function fields(list) {
  if (!list.length) return null;
  const dl = h("dl", { class: "fields" });
  for (const field of list) {
    const value = h("dd");
    value.innerHTML = field.html; // escaped by the server; wikilinks made links there
    dl.append(h("dt", {}, field.key), value);
  }
  return dl;
}

function focus(body, params) {
  const line = Number(params.get("line") || 0);
  const heading = params.get("heading");
  let target = null;
  if (line) {
    for (const el of body.querySelectorAll("[data-line]")) {
      if (Number(el.dataset.line) <= line) target = el;
      else break;
    }
  } else if (heading) {
    target = [...body.querySelectorAll("h1,h2,h3,h4,h5,h6")].find(
      (el) => el.textContent.trim().toLowerCase() === heading.toLowerCase(),
    );
  }
  if (target) {
    target.classList.add("target-line");
    target.scrollIntoView({ block: "center" });
  }
}

export async function renderNote(main, path, params, live) {
  const note = await get("note", { path });
  if (!live()) return;
  const actions = h(
    "div",
    { class: "actions" },
    note.editable ? h("a", { class: "button", href: `#/edit/${encodeURI(path)}` }, "Edit") : null,
    h("a", { class: "button", href: `#/history/${encodeURI(path)}` }, "History"),
  );
  const body = serverHtml("markdown", note.html);
  const dangling = note.dangling.length
    ? h(
        "section",
        { class: "link-panel" },
        h("h2", {}, "Dangling"),
        h("ul", {}, note.dangling.map((d) => h("li", {}, `[[${d.target}]] `, h("span", { class: "meta" }, `line ${d.line}`)))),
      )
    : null;
  main.replaceChildren(
    h(
      "div",
      { class: "note-page" },
      h(
        "article",
        { class: "note", "data-path": path },
        h("div", { class: "note-head" }, h("h1", { class: "note-path" }, path), actions),
        fields(note.fields),
        note.problem ? h("p", { class: "warning" }, note.problem) : null,
        note.complete ? null : h("p", { class: "warning" }, "This file is large: only its beginning is shown."),
        body,
      ),
      h(
        "aside",
        { class: "links" },
        linkList("Backlinks", note.backlinks, "Nothing links here."),
        linkList("Links", note.outlinks, "No links to other notes."),
        dangling,
      ),
    ),
  );
  focus(body, params);
}

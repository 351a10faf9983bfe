// A note: rendered Markdown (wikilinks are links), frontmatter as fields, links and backlinks.

import { ApiError, READ_ONLY, get } from "./api.js";
import { fieldList, fill, h, noteHref, pathText, serverHtml } from "./dom.js";
import { t } from "./i18n.js";
import { deleteButton, renameButton } from "./manage.js";
import { graphHref } from "./graph.js";
import { claimTimeline } from "./claims.js";

function linkList(title, notes, empty) {
  const items = notes.map((n) =>
    h(
      "li",
      {},
      h("a", { href: noteHref(n.path) }, n.name || n.path),
      n.description ? h("span", { class: "meta" }, n.description) : null,
      h("span", { class: "path" }, pathText(n.path)),
    ),
  );
  return h(
    "section",
    { class: "link-panel" },
    h("h2", {}, title, " ", h("span", { class: "count" }, String(notes.length))),
    items.length ? h("ul", {}, items) : h("p", { class: "muted small" }, empty),
  );
}

function focus(body, params) {
  const line = Number(params.get("line") || 0);
  const last = Math.max(line, Number(params.get("end") || 0));
  const heading = params.get("heading");
  let targets = [];
  if (line) {
    const blocks = [...body.querySelectorAll("[data-line]")];
    targets = blocks.filter((el) => Number(el.dataset.line) >= line && Number(el.dataset.line) <= last);
    const before = blocks.filter((el) => Number(el.dataset.line) <= line).pop();
    if (before && !targets.includes(before)) targets.unshift(before);
  } else if (heading) {
    const found = [...body.querySelectorAll("h1,h2,h3,h4,h5,h6")].find(
      (el) => el.textContent.trim().toLowerCase() === heading.toLowerCase(),
    );
    targets = found ? [found] : [];
  }
  targets.forEach((el) => el.classList.add("target-line"));
  if (targets.length) targets[0].scrollIntoView({ block: "center" });
}

async function versionsOf(path) {
  try {
    return (await get("history", { path })).versions;
  } catch {
    return []; // not a versioned memory file
  }
}

async function renderMissing(main, path, error, live) {
  const versions = await versionsOf(path);
  if (!live()) return;
  const deleted = versions.length > 0;
  fill(main,
    h(
      "div",
      { class: "error-box missing-note", "data-path": path },
      h("h1", {}, h("span", { class: "note-path" }, pathText(path))),
      h("p", {}, deleted ? t("This note was deleted; its history keeps every version.") : t("There is no note here yet.")),
      h(
        "div",
        { class: "actions" },
        deleted ? h("a", { class: "button", id: "missing-history", href: `#/history/${encodeURI(path)}` }, t("Open its history")) : null,
        path.endsWith(".md") && !READ_ONLY
          ? h("a", { class: `button${deleted ? " secondary" : ""}`, id: "missing-create", href: `#/new?${new URLSearchParams({ path })}` }, t("Create it"))
          : null,
      ),
      h("p", { class: "muted small" }, error.message),
    ),
  );
}

export async function renderNote(main, path, params, live) {
  let note;
  try {
    note = await get("note", { path });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return renderMissing(main, path, error, live);
    throw error;
  }
  if (!live()) return;
  const movable = note.editable && path !== "MEMORY.md"; // MEMORY.md stays where the app reads it
  const renaming = movable ? renameButton(path) : null;
  const deleting = movable ? deleteButton(path, note.backlinks) : null;
  const actions = h(
    "div",
    { class: "actions" },
    note.editable ? h("a", { class: "button", href: `#/edit/${encodeURI(path)}` }, t("Edit")) : null,
    note.versioned ? h("a", { class: "button", href: `#/history/${encodeURI(path)}` }, t("History")) : null,
    /^(MEMORY\.md|(memory|digest)\/.+\.md)$/.test(path) ? h("a", { class: "button secondary", href: graphHref({ focus: path }), id: "note-graph" }, t("Graph")) : null,
    renaming?.button,
    deleting?.button,
  );
  const body = serverHtml("markdown", note.html);
  claimTimeline(body, note.claims);
  const dangling = note.dangling.length
    ? h(
        "section",
        { class: "link-panel" },
        h("h2", {}, t("Dangling")),
        h("ul", {}, note.dangling.map((d) => h("li", {}, `[[${d.target}]] `, h("span", { class: "meta" }, `line ${d.line}`)))),
      )
    : null;
  fill(main,
    h(
      "div",
      { class: "note-page" },
      h(
        "article",
        { class: "note", "data-path": path },
        h("div", { class: "note-head" }, h("h1", { class: "note-path" }, pathText(path)), actions),
        renaming?.panel,
        deleting?.panel,
        fieldList(note.fields),
        note.problem ? h("p", { class: "warning" }, note.problem) : null,
        note.complete ? null : h("p", { class: "warning" }, t("This file is large: only its beginning is shown.")),
        body,
      ),
      h(
        "aside",
        { class: "links" },
        linkList(t("Backlinks"), note.backlinks, t("Nothing links here.")),
        linkList(t("Links"), note.outlinks, t("No links to other notes.")),
        dangling,
      ),
    ),
  );
  focus(body, params);
}

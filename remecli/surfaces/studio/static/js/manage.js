// Whole-note changes: create a note, rename it (every link to it rewritten), delete it (after
// showing what still links there). Each is one memory job, so each file keeps a version.

import { READ_ONLY, post } from "./api.js";
import { fill, h, noteHref } from "./dom.js";
import { t } from "./i18n.js";
import { flash, navChanged, navigate } from "./ui.js";

export function renderCreate(main, params) {
  if (READ_ONLY) { // nothing would save: say so instead of a form
    fill(main,
      h("h1", {}, t("New note")),
      h("p", { class: "warning", id: "create-refused" }, t("The server is read-only: Studio cannot create notes.")),
    );
    return;
  }
  const path = h("input", {
    id: "new-path",
    type: "text",
    value: params.get("path") || "digest/wiki/new-note.md",
    "aria-label": t("Path of the new note"),
    size: 48,
  });
  const source = h("textarea", { id: "source", spellcheck: "false", "aria-label": t("Source") });
  source.value = `# ${params.get("name") || "New note"}\n\n`; // a dangling link passes its name
  const state = h("span", { class: "editor-state muted" });
  async function create() {
    state.textContent = t("creating…");
    try {
      await post("save", { path: path.value.trim(), content: source.value, base_sha256: null });
      flash(`${t("Created")} ${path.value.trim()}`);
      navChanged();
      navigate(noteHref(path.value.trim()));
    } catch (error) {
      state.textContent = `${t("not created")}: ${error.message}`;
    }
  }
  fill(main,
    h("h1", {}, t("New note")),
    h("p", { class: "muted" }, t("A Markdown file under memory/ or digest/ (or MEMORY.md).")),
    h("div", { class: "editor-bar" }, path),
    h("div", { class: "editor-grid single" }, source),
    h("div", { class: "editor-bar" }, h("button", { id: "create", onclick: create }, t("Create")), state),
  );
  path.focus();
}

export function renameButton(path) {
  const panel = h("div", { class: "manage-panel", hidden: true });
  const open = () => {
    const target = h("input", { id: "rename-to", type: "text", value: path, size: 48, "aria-label": t("New path") });
    const go = h("button", { id: "confirm-rename" }, t("Rename"));
    go.addEventListener("click", async () => {
      try {
        const done = await post("rename", { path, new_path: target.value.trim() });
        const rewritten = done.rewritten.length
          ? `; ${t("links rewritten in")} ${done.rewritten.join(", ")}`
          : `; ${t("no note linked to it")}`;
        flash(`${t("Renamed")} ${done.path} → ${done.new_path}${rewritten}`);
        navChanged();
        navigate(noteHref(done.new_path));
      } catch (error) {
        flash(`${t("Not renamed")}: ${error.message}`, "bad");
      }
    });
    fill(panel,
      h("p", {}, t("Move this note; every link to it is rewritten so it keeps its target.")),
      target, " ", go, " ",
      h("button", { class: "secondary", onclick: () => (panel.hidden = true) }, t("Cancel")),
    );
    panel.hidden = false;
    target.focus();
  };
  return { button: h("button", { id: "rename", class: "secondary", onclick: open }, t("Rename")), panel };
}

export function deleteButton(path, backlinks) {
  const panel = h("div", { class: "manage-panel danger", hidden: true });
  const open = () => {
    const linking = backlinks.length
      ? [
          h("p", { class: "warning" }, t("These notes still link here; their links will point nowhere:")),
          h("ul", { class: "still-linking" }, backlinks.map((n) => h("li", {}, h("a", { href: noteHref(n.path) }, n.path)))),
        ]
      : h("p", {}, t("Nothing links here."));
    const go = h("button", { id: "confirm-delete", class: "bad" }, `${t("Delete")} ${path}`);
    go.addEventListener("click", async () => {
      try {
        const done = await post("delete", { path });
        const dangling = done.linking.length ? ` (${done.linking.length} ${t("links now dangling")})` : "";
        flash(`${t("Deleted")} ${done.path}${dangling}; ${t("its history keeps it")}`);
        navChanged();
        navigate(`#/history/${encodeURI(done.path)}`);
      } catch (error) {
        flash(`${t("Not deleted")}: ${error.message}`, "bad");
      }
    });
    fill(panel, linking, go, " ",
      h("button", { class: "secondary", onclick: () => (panel.hidden = true) }, t("Cancel")));
    panel.hidden = false;
  };
  return { button: h("button", { id: "delete", class: "secondary", onclick: open }, t("Delete")), panel };
}

// The editor: the source in a textarea, a live preview, and a save that refuses to overwrite a
// file that changed on disk since it was loaded (then both versions are shown side by side).

import { ApiError, get, post } from "./api.js";
import { debounce, fieldList, fill, h, noteHref, pathText, serverHtml } from "./dom.js";
import { t } from "./i18n.js";
import { flash, guardUnsaved, navigate } from "./ui.js";

export async function renderEditor(main, path, live) {
  const note = await get("note", { path });
  if (!live()) return;
  if (!note.editable) {
    fill(
      main,
      h("h1", {}, h("span", { class: "note-path" }, pathText(path))),
      h("p", { class: "warning" }, "Studio cannot edit this file: the server is read-only, or it is not a Markdown memory file (MEMORY.md, memory/, digest/)."),
      h("a", { class: "button secondary", href: noteHref(path) }, t("Back to the note")),
    );
    return;
  }
  let base = note.sha256;
  let saved = note.content;
  const source = h("textarea", { id: "source", spellcheck: "false", "aria-label": "Source" });
  source.value = note.content;
  const preview = h("div", { class: "markdown preview", "aria-label": "Preview" });
  const showPreview = (rendered) =>
    fill(preview, fieldList(rendered.fields), serverHtml("preview-body", rendered.html));
  showPreview(note);
  const state = h("span", { class: "editor-state muted" });
  const conflict = h("section", { class: "conflict", hidden: true });

  const refresh = debounce(async () => {
    try {
      const rendered = await post("preview", { path, content: source.value });
      showPreview(rendered);
    } catch (error) {
      state.textContent = `preview failed: ${error.message}`;
    }
  }, 300);
  source.addEventListener("input", () => {
    state.textContent = t("unsaved changes");
    refresh();
  });

  // One side of the conflict: its lines, those that differ from the other side marked.
  const side = (name, rows, mark) =>
    h("pre", { class: `side ${name}` }, rows.map((row) => h("div", { class: row.changed ? `diff-${mark} changed` : "" }, row.text || " ")));

  function showConflict(error) {
    const theirs = error.body.current ?? "";
    const changed = (error.body.theirs || []).filter((row) => row.changed).length;
    fill(conflict,
      h("h2", {}, t("Conflict: the file changed on disk")),
      h("p", { class: "conflict-message" }, error.message),
      h(
        "div",
        { class: "both" },
        h("div", {}, h("h3", {}, t("Yours")), side("mine", error.body.mine || [], "del")),
        h("div", {}, h("h3", {}, t("On disk now"), ` (${changed} ${t("lines differ")})`), side("theirs", error.body.theirs || [], "add")),
      ),
      h(
        "div",
        { class: "editor-bar" },
        h("button", { id: "overwrite", onclick: () => save(error.body.current_sha256) }, t("Overwrite with mine")),
        h(
          "button",
          {
            id: "take-theirs",
            class: "secondary",
            onclick: () => {
              source.value = theirs;
              base = error.body.current_sha256;
              saved = theirs;
              conflict.hidden = true;
              main.querySelector(".changed-on-disk").hidden = true; // the editor now holds it
              state.textContent = t("loaded the version on disk");
              refresh();
            },
          },
          t("Take the version on disk"),
        ),
      ),
    );
    conflict.hidden = false;
    conflict.scrollIntoView({ block: "start" });
  }

  async function save(againstSha = base) {
    state.textContent = t("saving…");
    try {
      const done = await post("save", { path, content: source.value, base_sha256: againstSha });
      base = done.sha256;
      saved = source.value;
      const kept = done.version ? ` as version ${done.version}` : "";
      const redacted = done.redacted.length ? ` (secrets removed: ${done.redacted.join(", ")})` : "";
      flash(`Saved ${path}${kept}${redacted}`);
      navigate(noteHref(path));
    } catch (error) {
      if (error instanceof ApiError && error.code === "changed_on_disk") {
        state.textContent = t("not saved: conflict");
        showConflict(error);
      } else {
        state.textContent = `not saved: ${error.message}`;
      }
    }
  }

  fill(main,
    h("div", { class: "note-head" }, h("h1", {}, t("Editing "), h("span", { class: "note-path" }, pathText(path)))),
    h("p", { class: "warning changed-on-disk", hidden: true },
      t("This file changed on disk while you edit it: saving will show both versions to choose from.")),
    h("div", { class: "editor-grid" }, source, preview),
    h(
      "div",
      { class: "editor-bar" },
      h("button", { id: "save", onclick: () => save() }, t("Save")),
      h("a", { class: "button secondary", href: noteHref(path) }, t("Cancel")),
      state,
    ),
    conflict,
  );
  guardUnsaved(() => source.value !== saved);
  source.focus();
}

// A file's history: its versions, the diff between any two (or a version and the file now),
// and restore (itself a new version, so it can be undone the same way).

import { get, post } from "./api.js";
import { bytes, fill, h, noteHref, pathText, when } from "./dom.js";
import { t } from "./i18n.js";
import { flash, navChanged } from "./ui.js";

function diffView(rows) {
  if (!rows.length) return h("p", { class: "muted" }, t("No difference."));
  return h(
    "pre",
    { class: "diff" },
    rows.map((row) => h("div", { class: `diff-${row.kind}` }, (row.kind === "add" ? "+ " : row.kind === "del" ? "- " : row.kind === "same" ? "  " : "") + row.text)),
  );
}

export async function renderHistory(main, path, live) {
  const data = await get("history", { path });
  if (!live()) return;
  const output = h("div", { class: "diff-output" });
  const versions = data.versions;
  const choice = (name, value, checked) =>
    h("input", { type: "radio", name, value, checked, "aria-label": `${name} ${value}` });

  async function compare() {
    const old = main.querySelector('input[name="old"]:checked')?.value;
    const neu = main.querySelector('input[name="new"]:checked')?.value;
    if (!old || !neu) return;
    let diff;
    try {
      diff = await get("diff", { path, old, new: neu });
    } catch (error) {
      fill(output, h("p", { class: "warning" }, `No diff: ${error.message}`));
      return;
    }
    fill(output, h("h2", {}, `Version ${old} → ${neu === "current" ? t("now") : "version " + neu}`), diffView(diff.rows));
  }

  function restoreCell(v) {
    if (v.deleted) return h("td", {}, t("deleted"));
    const cell = h("td");
    const ask = h("button", { class: "secondary", "data-restore": v.version }, t("Restore"));
    ask.addEventListener("click", () => {
      const yes = h("button", { "data-confirm-restore": v.version }, `Yes, restore version ${v.version}`);
      const no = h("button", { class: "secondary" }, t("Cancel"));
      yes.addEventListener("click", async () => {
        try {
          const done = await post("restore", { path, version: v.version });
          flash(done.version === null || done.version === undefined // the same content: no new version
            ? `${t("Nothing to restore")}: ${path} ${t("is already the same as version")} ${done.restored}`
            : `Restored version ${done.restored} of ${path} (now version ${done.version})`);
          navChanged(); // a deleted note restored is back in its section
          await renderHistory(main, path, live);
        } catch (error) {
          flash(`Not restored: ${error.message}`, "bad");
          fill(cell, ask);
        }
      });
      no.addEventListener("click", () => fill(cell, ask));
      fill(cell, yes, no);
    });
    cell.append(ask);
    return cell;
  }

  const rows = versions.map((v, i) =>
    h(
      "tr",
      { "data-version": v.version },
      h("td", {}, choice("old", v.version, i === 1 || (versions.length === 1 && i === 0))),
      h("td", {}, choice("new", v.version, false)),
      h("td", {}, String(v.version)),
      h("td", {}, when(v.time)),
      h("td", {}, v.deleted ? "—" : bytes(v.bytes)),
      h("td", {}, v.source),
      restoreCell(v),
    ),
  );
  const now = h(
    "tr",
    { class: t("now") },
    h("td"),
    h("td", {}, choice("new", "current", true)),
    h("td", {}, t("now")),
    h("td", { colspan: 4 }, t("the file as it is on disk")),
  );
  fill(main,
    h(
      "div",
      { class: "note-head" },
      h("h1", {}, t("History of "), h("a", { class: "note-path", href: noteHref(path) }, pathText(path))),
    ),
    versions.length
      ? h(
          "div",
          { class: "table-scroll" },
          h(
          "table",
          { class: "versions" },
          h("thead", {}, h("tr", {}, ["Old", "New", "Version", "Time (UTC)", "Size", "Made by", ""].map((label) => h("th", {}, t(label))))),
          h("tbody", {}, now, rows),
          ),
        )
      : h("p", { class: "muted" }, t("No versions yet: the first save through remecli keeps one.")),
    versions.length ? h("div", { class: "editor-bar" }, h("button", { id: "compare", onclick: compare }, t("Compare"))) : null,
    output,
  );
  if (versions.length) await compare();
}

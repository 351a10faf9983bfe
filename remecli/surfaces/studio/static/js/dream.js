// Dream review: the runs of Auto Dream as changesets; per node the action, its sources, the
// versions and a diff; revert a node or a whole run, approve or reject a run that waits.

import { get, post } from "./api.js";
import { fill, h, noteHref, when } from "./dom.js";
import { t, translateStatic } from "./i18n.js";
import { supersessionList } from "./claims.js";

const runsNav = document.getElementById("runs");
const main = document.getElementById("main");

function flash(text, kind = "ok") {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = kind;
}

function diffView(diff) {
  if (!diff) return h("p", { class: "muted" }, t("No change to the text."));
  let header = true; // the `---`/`+++` file names come before the first `@@` only
  const rows = diff.replace(/\n$/, "").split("\n").map((line) => {
    if (line.startsWith("@@")) header = false;
    const kind = header || line.startsWith("@@")
      ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "same";
    return h("div", { class: `diff-${kind}` }, line);
  });
  return h("pre", { class: "diff" }, rows);
}

function confirmButton(label, question, action) {
  const cell = h("span", { class: "confirm" });
  const ask = h("button", { class: "secondary" }, label);
  ask.addEventListener("click", () => {
    const yes = h("button", {}, question);
    const no = h("button", { class: "secondary" }, t("Cancel"));
    yes.addEventListener("click", async () => {
      try {
        await action();
      } catch (error) {
        flash(`${t("Not done:")} ${error.message}`, "bad");
        fill(cell, ask);
      }
    });
    no.addEventListener("click", () => fill(cell, ask));
    fill(cell, yes, no);
  });
  cell.append(ask);
  return cell;
}

function nodeView(run, node) {
  const sources = node.sources.length
    ? node.sources.map((card) => h("li", {}, h("a", { href: "/" + noteHref(card) }, card)))
    : [h("li", { class: "muted" }, t("(no cards)"))];
  const actions = h("div", { class: "actions" });
  if (node.reverted) {
    actions.append(h("span", { class: "muted" }, `${t("reverted")} (${t("version")} ${node.reverted_version ?? "—"})`));
  } else if (run.status === "applied" || run.status === "approved") {
    actions.append(
      confirmButton(t("Revert node"), `${t("Yes, revert")} ${node.path}`, async () => {
        const done = await post("dream/revert", { run_id: run.id, path: node.path });
        flash(done.message, done.nodes.some((n) => n.error) ? "bad" : "ok");
        await refresh(run.id); // the list too: the run may now be reverted
      }),
    );
  }
  return h(
    "section",
    { class: "dream-node", "data-path": node.path },
    h("h2", {}, h("span", { class: "action" }, node.action), " ",
      h("a", { href: "/" + noteHref(node.path) }, node.path)),
    node.unit ? h("p", {}, `${t("Unit:")} ${node.unit}`) : null,
    h("p", { class: "muted" },
      `${t("Versions:")} ${node.before_version ?? t("none (new)")} → ${node.after_version ?? t("not written yet")}`),
    h("h3", {}, t("Sources")),
    h("ul", { class: "sources" }, sources),
    supersessionList(node.supersessions),
    diffView(node.diff),
    actions,
  );
}

async function showRun(id) {
  let run;
  try {
    run = await get("dream/run", { id });
  } catch (error) {
    fill(main, h("p", { class: "warning" }, `${t("No such run:")} ${error.message}`));
    return;
  }
  const buttons = h("div", { class: "actions" });
  if (run.status === "pending") {
    buttons.append(
      confirmButton(t("Approve"), t("Yes, write these changes"), async () => {
        const done = await post("dream/approve", { run_id: run.id });
        flash(done.message);
        await refresh(run.id);
      }),
      confirmButton(t("Reject"), t("Yes, drop these changes"), async () => {
        const done = await post("dream/reject", { run_id: run.id });
        flash(done.message);
        await refresh(run.id);
      }),
    );
  } else if (run.nodes.some((n) => !n.reverted) && run.status !== "rejected") {
    buttons.append(
      confirmButton(t("Revert run"), t("Yes, revert every node of this run"), async () => {
        const done = await post("dream/revert", { run_id: run.id });
        flash(done.message, done.nodes.some((n) => n.error) ? "bad" : "ok");
        await refresh(run.id); // the list too: the run may now be reverted
      }),
    );
  }
  const units = run.units.map((u) =>
    h("li", {}, `${u.ok ? "✓" : "✗"} ${u.name} (${u.bucket}): ${u.ok ? u.action + " " + u.path : u.detail}`),
  );
  fill(
    main,
    h("article", { class: "dream-run", "data-run": run.id },
      h("h1", {}, `${t("Dream run")} ${run.id}`),
      h("p", { class: "muted" }, `${when(run.time)} · `, outcomeBadge(run)),
      h("p", {}, run.message),
      buttons,
      h("h2", {}, t("Units")),
      h("ul", { class: "units" }, units),
      run.nodes.map((node) => nodeView(run, node)),
    ),
  );
}

// What became of the run (reverted, failed, …), not only its status when it was written.
function outcomeBadge(run) {
  const outcome = run.outcome || run.status;
  return h("span", { class: `status status-${outcome.replace(/ /g, "-")}`, "data-outcome": outcome }, t(outcome));
}

async function refresh(selected) {
  const data = await get("dream/runs");
  const items = data.runs.map((run) =>
    h("li", { class: run.id === selected ? "current" : "" },
      h("a", { href: `#run=${run.id}`, "data-run": run.id },
        h("span", {}, when(run.time)), " ",
        outcomeBadge(run), " ",
        h("span", { class: "count" }, String(run.nodes.length)))),
  );
  fill(runsNav, h("h2", {}, t("Dream runs")),
    items.length ? h("ul", { class: "files" }, items) : h("p", { class: "muted" }, t("No dream runs yet.")));
  if (selected) await showRun(selected);
}

function route() {
  const match = location.hash.match(/run=([0-9Ta-f-]+)/);
  refresh(match ? match[1] : null).catch((error) => flash(error.message, "bad"));
}

translateStatic();
document.title = `${t("Dream review")} · remecli Studio`;
window.addEventListener("hashchange", route);
route();

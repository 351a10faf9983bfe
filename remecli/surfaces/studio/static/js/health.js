// Index health: what the index covers, what is stale or waits for a vector, the last reindex and
// dream; the Reindex and Dream buttons run those jobs and follow them through server-sent events.

import { get, post } from "./api.js";
import { fill, h, noteHref, when } from "./dom.js";
import { t } from "./i18n.js";

function figure(label, value, key) {
  return h("div", { class: "figure", "data-figure": key }, h("span", { class: "figure-value" }, value), h("span", { class: "figure-label" }, label));
}

// The last sync over git in one line ("not set up": how to set it up).
function syncText(sync) {
  if (!sync) return t("not set up (remecli sync init REMOTE)");
  if (!sync.time) return `${t("never")} — ${sync.remote}`;
  return `${when(sync.time)} — ${sync.message}`;
}

function fileList(title, key, files) {
  if (!files.length) return null;
  return h(
    "section",
    { class: "health-files", "data-list": key },
    h("h2", {}, title, " ", h("span", { class: "count" }, String(files.length))),
    h("ul", { class: "files" }, files.map((path) => h("li", {}, h("a", { href: noteHref(path) }, path)))),
  );
}

// A job that ended with `ok: false` (a dream whose model did not answer) failed, though it ran
// to its end: it is shown as failed, not finished.
function outcome(event) {
  if (event.kind === "finished" && event.result && event.result.ok === false) return "failed";
  return event.kind;
}

function describe(event) {
  if (event.kind === "started") return t("started");
  if (outcome(event) === "failed" && event.kind === "finished") {
    const result = event.result;
    return `${t("failed")}: ${result.status} — ${result.message || ""}`;
  }
  if (event.kind === "progress") return `${event.stage} ${event.done}/${event.total}`;
  if (event.kind === "failed") return `${t("failed")}: ${event.error}`;
  const result = event.result || {};
  if ("status" in result) return `${t("finished")}: ${result.status} — ${result.message || ""} (${(result.actions || []).length} ${t("changes")})`;
  return `${t("finished")}: ${result.files_changed ?? 0} ${t("files read")}, ${result.chunks_added ?? 0} ${t("chunks added")}, ${result.notes ?? 0} ${t("notes in the link graph")}`;
}

function follow(task, panel, onDone) {
  const bar = h("progress", { max: 1 }); // no value: moving until a step is reported
  const line = h("span", { class: "task-line" }, t("started"));
  const clock = h("span", { class: "task-clock muted" });
  const log = h("ol", { class: "task-log" });
  fill(panel, h("div", { class: "task", "data-task": task.id, "data-job": task.job }, h("strong", {}, task.job), " ", bar, " ", line, " ", clock, log));
  const began = Date.now(); // a job that reports no steps (a dream) still shows it is working
  const ticking = setInterval(() => {
    if (!clock.isConnected) clearInterval(ticking);
    else clock.textContent = `${Math.round((Date.now() - began) / 1000)} s`;
  }, 1000);
  const source = new EventSource(`/studio/api/tasks/events?id=${encodeURIComponent(task.id)}`);
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    const kind = outcome(event);
    line.textContent = describe(event);
    log.append(h("li", { "data-kind": kind }, describe(event)));
    if (event.kind === "progress" && event.total) {
      bar.max = event.total;
      bar.value = event.done;
    }
    if (kind === "finished" || kind === "failed") {
      bar.max = 1;
      bar.value = kind === "finished" ? 1 : 0;
      clearInterval(ticking);
      panel.querySelector(".task").classList.add(kind);
      source.close();
      onDone();
    }
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) line.textContent = t("lost the connection; reload the page");
  };
}

export async function renderHealth(main, live) {
  const data = await get("health");
  if (!live()) return;
  const panel = h("div", { class: "task-panel" });
  const refresh = async () => {
    const now = await get("health");
    if (live()) fill(main.querySelector(".health-body"), body(now));
  };
  async function run(job) {
    try {
      follow(await post("tasks", { job }), panel, refresh);
    } catch (error) {
      fill(panel, h("p", { class: "warning" }, error.message));
    }
  }
  const share = (d) => (d.embedded_share === null ? t("off") : `${Math.round(d.embedded_share * 100)}%`);
  const body = (d) => [
    h(
      "div",
      { class: "figures" },
      figure(t("Files on disk"), String(d.files_on_disk), "files_on_disk"),
      figure(t("Files indexed"), String(d.files_indexed), "files_indexed"),
      figure(t("Chunks"), String(d.chunks), "chunks"),
      figure(t("Embedded"), share(d), "embedded_share"),
      figure(t("Stale files"), String(d.stale.length + d.missing.length + d.gone.length), "stale"),
      figure(t("Waiting for a vector"), String(d.unembedded.length), "unembedded"),
    ),
    h(
      "dl",
      { class: "fields" },
      h("dt", {}, t("Index")), h("dd", { "data-field": "index_state" }, d.index_state + (d.index_error ? ` — ${d.index_error}` : "")),
      h("dt", {}, t("Embeddings")), h("dd", {}, d.embedding_backend),
      h("dt", {}, t("Last reindex")), h("dd", { "data-field": "last_reindex" }, d.last_reindex ? when(d.last_reindex) : t("never")),
      h("dt", {}, t("Last dream")), h("dd", { "data-field": "last_dream" }, d.last_dream ? when(d.last_dream) : t("never")),
      h("dt", {}, t("Summaries waiting")), h("dd", {}, String(d.pending_summaries)),
      h("dt", {}, t("Last sync")), h("dd", { "data-field": "sync" }, syncText(d.sync)),
    ),
    fileList(t("Sync conflicts to resolve (both versions are kept between <<<<<<< and >>>>>>> lines)"), "sync_conflicts", d.sync ? d.sync.conflicts.map((c) => c.path) : []),
    fileList(t("Not synced: the redactor finds a secret"), "sync_refused", d.sync ? d.sync.refused.map((r) => r.path) : []),
    fileList(t("Changed since indexed"), "stale", d.stale),
    fileList(t("Not indexed yet"), "missing", d.missing),
    fileList(t("Indexed but gone from disk"), "gone", d.gone),
    fileList(t("Waiting for a vector"), "unembedded", d.unembedded),
    fileList(t("Conversations still being written (their last lines get a vector once quiet for 10 minutes)"), "being_written", d.being_written || []),
  ];
  fill(main,
    h("div", { class: "note-head" }, h("h1", {}, t("Index health")),
      h("div", { class: "actions" },
        h("button", { id: "reindex", onclick: () => run("memory_reindex") }, t("Reindex")),
        h("button", { id: "dream", class: "secondary", onclick: () => run("memory_dream") }, t("Dream now")))),
    panel,
    h("div", { class: "health-body" }, body(data)),
  );
  // Drawn again (a live update, a reload): the task still running, else the last one run, so a
  // job that ended while the page was redrawn is still shown with its outcome.
  const tasks = data.tasks || [];
  const shown = tasks.filter((task) => !task.done).pop() || tasks.at(-1);
  if (shown) follow(shown, panel, refresh);
}

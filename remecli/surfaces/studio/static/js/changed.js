// Changed facts: every struck-through claim in MEMORY.md and the digest (memory_changed_facts),
// the most recent change first: what stopped being true, what replaced it, when, and where.

import { get } from "./api.js";
import { fill, h, noteHref } from "./dom.js";
import { t } from "./i18n.js";

function row(fact) {
  const held = fact.since ? `${fact.since} – ${fact.until}` : `${t("until")} ${fact.until}`;
  return h(
    "li",
    { class: "changed-fact" },
    h("span", { class: "meta" }, fact.until),
    " ",
    h("del", {}, fact.text),
    fact.replaced_by ? [" → ", h("strong", {}, fact.replaced_by)] : null,
    " ",
    h("span", { class: "muted small" }, `(${held}) `),
    h("a", { class: "meta", href: noteHref(fact.path) }, `${fact.path}:${fact.line}`),
  );
}

export async function renderChanged(main, live) {
  const data = await get("changed");
  if (!live()) return;
  fill(main,
    h("h1", {}, t("Changed facts")),
    h("p", { class: "muted" }, t("Claims that stopped being true, newest first; each stays in its note, struck through, with when it held.")),
    data.facts.length
      ? h("ol", { class: "changed-facts" }, data.facts.map(row))
      : h("p", { class: "muted" }, t("No changed facts yet: a correction keeps the old claim struck through with its dates.")),
    data.total > data.facts.length ? h("p", { class: "muted" }, `+${data.total - data.facts.length}`) : null,
  );
}

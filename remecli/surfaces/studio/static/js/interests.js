// Interests: the topics Auto Dream suggested to follow (title, reason, evidence, keywords), by
// day, newest first. Read only: remecli never acts on them.

import { get } from "./api.js";
import { fill, h, noteHref } from "./dom.js";
import { t } from "./i18n.js";

function evidenceLink(item) {
  if (!item.path) return h("span", { class: "wikilink dangling", title: t("nothing has this name yet") }, item.target);
  return h("a", { class: "wikilink", href: noteHref(item.path) }, item.target);
}

export async function renderInterests(main, live) {
  const data = await get("interests");
  if (!live()) return;
  const days = data.days.map((day) =>
    h(
      "section",
      { class: "interest-day", "data-date": day.date },
      h("h2", {}, day.date, " ", h("a", { class: "meta", href: noteHref(day.path) }, day.path)),
      h(
        "ol",
        { class: "topics" },
        day.topics.map((topic) =>
          h(
            "li",
            { class: "topic" },
            h("strong", { class: "topic-title" }, topic.title),
            topic.reason ? h("p", { class: "topic-reason" }, topic.reason) : null,
            topic.keywords.length ? h("p", { class: "topic-keywords" }, topic.keywords.map((k) => h("span", { class: "chip" }, k))) : null,
            topic.evidence.length ? h("p", { class: "topic-evidence" }, `${t("Evidence")}: `, topic.evidence.map(evidenceLink)) : null,
          ),
        ),
      ),
    ),
  );
  fill(main,
    h("h1", {}, t("Interests")),
    h("p", { class: "muted" }, t("Topics Auto Dream suggests you may want to follow. remecli only shows them.")),
    days.length ? days : h("p", { class: "muted" }, t("No interests yet: Auto Dream suggests some after it consolidates cards.")),
  );
}

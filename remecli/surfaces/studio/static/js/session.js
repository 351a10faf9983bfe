// A transcript read as a conversation, with the cards written from it; the lines each card cites
// are marked, and choosing a card marks only its lines.

import { get } from "./api.js";
import { fill, h, noteHref, pathText, when } from "./dom.js";
import { t } from "./i18n.js";

export function isTranscript(path) {
  return /^sessions\/[^/]+\.jsonl$/.test(path);
}

function rangeText(range) {
  if (!range[0]) return t("the whole session");
  return range[0] === range[1] ? `L${range[0]}` : `L${range[0]}–L${range[1]}`;
}

function inRanges(line, ranges) {
  return ranges.some(([first, last]) => first === 0 || (line >= first && line <= last));
}

export async function renderSession(main, path, params, live) {
  const data = await get("session", { path });
  if (!live()) return;
  const turns = data.turns.map((turn) =>
    h(
      "li",
      { class: `turn speaker-${turn.speaker === "user" ? "user" : "other"}`, "data-line": turn.line },
      h("div", { class: "turn-head" }, h("span", { class: "speaker" }, turn.speaker),
        h("span", { class: "meta" }, `L${turn.line} ${when(turn.at)}`)),
      h("div", { class: "turn-text" }, turn.text),
    ),
  );
  const rows = () => [...main.querySelectorAll("li.turn")];
  function mark(cards) {
    const ranges = cards.flatMap((card) => card.ranges);
    for (const row of rows()) row.classList.toggle("cited", inRanges(Number(row.dataset.line), ranges));
    const first = rows().find((row) => row.classList.contains("cited"));
    if (first) first.scrollIntoView({ block: "center" });
  }
  const cardItems = data.cards.map((card) =>
    h(
      "li",
      { "data-card": card.path },
      h("a", { href: noteHref(card.path) }, card.name),
      card.description ? h("span", { class: "meta" }, card.description) : null,
      h(
        "button",
        { class: "secondary cites", onclick: () => mark([card]) },
        `${t("cites")} ${card.ranges.map(rangeText).join(", ")}`,
      ),
    ),
  );
  fill(main,
    h(
      "div",
      { class: "note-page" },
      h(
        "article",
        { class: "session", "data-path": path },
        h("div", { class: "note-head" }, h("h1", { class: "note-path" }, pathText(path)),
          h("a", { class: "button secondary", href: `#/raw/${encodeURI(path)}` }, t("Raw lines"))),
        data.complete ? null : h("p", { class: "warning" }, t("This file is large: only its beginning is shown.")),
        turns.length ? h("ol", { class: "conversation" }, turns) : h("p", { class: "muted" }, t("No messages with text in this session.")),
      ),
      h(
        "aside",
        { class: "links" },
        h(
          "section",
          { class: "link-panel session-cards" },
          h("h2", {}, t("Cards from this session"), " ", h("span", { class: "count" }, String(data.cards.length))),
          cardItems.length ? h("ul", {}, cardItems) : h("p", { class: "muted small" }, t("No card cites this session yet.")),
          cardItems.length > 1 ? h("button", { class: "secondary", onclick: () => mark(data.cards) }, t("Mark all")) : null,
        ),
      ),
    ),
  );
  const line = Number(params.get("line") || 0);
  if (line) { // a link to a line marks the card ranges that start there (or just those lines)
    const last = Math.max(line, Number(params.get("end") || 0));
    const starting = data.cards.flatMap((card) => card.ranges).filter((r) => r[0] === line && r[1] >= last);
    mark([{ ranges: starting.length ? starting : [[line, last]] }]);
  } else mark(data.cards);
}

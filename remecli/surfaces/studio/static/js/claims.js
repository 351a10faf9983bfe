// Timed claims (notes/claims): a node's `## History` drawn as a timeline (when each claim held,
// superseded ones struck through with what replaced them and the cards they rest on), and a
// dream run's supersessions (old claim → new claim, with the dates).

import { h, fill, noteHref } from "./dom.js";
import { t } from "./i18n.js";

const WIKILINK = /^\[\[([^\]|#]+)[^\]]*\]\]$/;

// What replaced a claim: a link when it is a wikilink, else its text.
function replacement(text) {
  const link = String(text).trim().match(WIKILINK);
  return link ? h("a", { class: "wikilink", href: noteHref(link[1]) }, link[1]) : h("strong", {}, text);
}

function period(claim) {
  if (!claim.until) return `${t("since")} ${claim.since}`;
  return claim.since ? `${claim.since} → ${claim.until}` : `${t("until")} ${claim.until}`;
}

function cardLinks(cards) {
  if (!cards.length) return null;
  return h("span", { class: "claim-cards" }, cards.map((card) =>
    h("a", { class: "wikilink", href: noteHref(card), title: card }, card.split("/").pop().replace(/\.md$/, ""))));
}

// Each claim line of the rendered note (`li[data-line]`) shows when it held; a list made only
// of claims (a node's ## History) is drawn as a timeline, a mixed one (MEMORY.md) keeps bullets.
export function claimTimeline(body, claims) {
  const lists = new Set();
  for (const claim of claims || []) {
    const item = body.querySelector(`li[data-line="${claim.line}"]`);
    if (!item) continue;
    lists.add(item.parentElement);
    item.classList.add("claim", claim.superseded ? "claim-superseded" : "claim-current");
    item.dataset.since = claim.since;
    item.dataset.until = claim.until;
    fill(item,
      h("span", { class: "claim-when" }, period(claim)),
      h("span", { class: "claim-body" },
        claim.superseded ? h("s", {}, claim.text) : h("span", { class: "claim-text" }, claim.text),
        claim.superseded && claim.replaced_by ? h("span", { class: "claim-by" }, ` → ${t("replaced by")} `, replacement(claim.replaced_by)) : null,
        claim.superseded ? null : h("span", { class: "claim-now" }, t("current")),
      ),
      cardLinks(claim.cards || []),
    );
  }
  for (const list of lists) {
    if ([...list.children].every((item) => item.classList.contains("claim"))) list.classList.add("claim-timeline");
  }
}

// A dream run's node: the claims it superseded.
export function supersessionList(list) {
  if (!list || !list.length) return null;
  return h("section", { class: "supersessions" },
    h("h3", {}, t("Superseded")),
    h("ul", {}, list.map((gone) =>
      h("li", { class: "supersession" },
        h("del", {}, gone.claim),
        gone.replaced_by ? [" → ", replacement(gone.replaced_by)] : null,
        " ",
        h("span", { class: "muted small" }, `(${period(gone)})`),
      ))),
  );
}

// The page's words in the user's language (`language: zh` in the settings → Chinese); a string
// with no translation stays English.

import { ZH } from "./i18n_zh.js";

const chinese = document.documentElement.lang === "zh";

export function t(text) {
  return chinese ? ZH[text] ?? text : text;
}

export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

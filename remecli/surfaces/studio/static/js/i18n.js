// The page's words in the user's language: the one chosen in the header (remembered by this
// browser), else the server's setting (`language: zh` → Chinese); a string with no translation
// stays English.

import { ZH } from "./i18n_zh.js";

const KEY = "remecli-studio-language";
const LANGUAGES = ["en", "zh"];
const chosen = localStorage.getItem(KEY);
if (LANGUAGES.includes(chosen)) document.documentElement.lang = chosen;
const chinese = document.documentElement.lang === "zh";

export function bindLanguage(select) {
  select.value = chinese ? "zh" : "en";
  select.addEventListener("change", () => {
    localStorage.setItem(KEY, select.value);
    location.reload(); // every page's words are drawn again in the new language
  });
}

export function t(text) {
  return chinese ? ZH[text] ?? text : text;
}

export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

// Light or dark: "auto" follows the system setting; the header button cycles auto → light →
// dark, remembered in this browser.

import { t } from "./i18n.js";

const KEY = "remecli-studio-theme";
const ORDER = ["auto", "light", "dark"];

function apply(theme, button) {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  button.textContent = `${t("Theme")}: ${t(theme)}`;
  button.dataset.theme = theme;
}

export function bindTheme(button) {
  let theme = localStorage.getItem(KEY) || "auto";
  if (!ORDER.includes(theme)) theme = "auto";
  apply(theme, button);
  button.addEventListener("click", () => {
    theme = ORDER[(ORDER.indexOf(theme) + 1) % ORDER.length];
    localStorage.setItem(KEY, theme);
    apply(theme, button);
  });
}

// Small DOM helpers: elements are built with text nodes (never from strings of HTML), except
// where the server sends HTML it rendered and sanitised itself (notes, previews).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function serverHtml(className, html) {
  const el = h("div", { class: className });
  el.innerHTML = html; // rendered by the server with raw HTML escaped
  return el;
}

export function noteHref(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  return "#/note/" + encodeURI(path) + (query ? "?" + query : "");
}

// A path that wraps after a `/`, not in the middle of a name: each part (with its `/`) is a box
// of its own, broken inside only when that part alone is wider than the line.
export function pathText(path) {
  const parts = String(path).split("/");
  return parts.map((part, i) => h("span", { class: "path-part" }, i < parts.length - 1 ? part + "/" : part));
}

export function debounce(fn, ms) {
  let timer = null;
  const call = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  call.cancel = () => clearTimeout(timer); // a call still waiting is dropped
  return call;
}

export function when(iso) {
  return (iso || "").slice(0, 16).replace("T", " ");
}

export function bytes(n) {
  if (n === undefined || n === null) return "";
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
}

export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export function fieldList(list) {
  if (!list.length) return null;
  const dl = h("dl", { class: "fields" });
  for (const field of list) {
    const value = h("dd");
    value.innerHTML = field.html; // escaped by the server; wikilinks made links there
    dl.append(h("dt", {}, field.key), value);
  }
  return dl;
}

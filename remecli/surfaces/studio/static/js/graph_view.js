// The link graph on a <canvas>. The layout runs in a worker (graph_worker.js) and posts places
// as it settles; this thread only draws (one batched path for the links, one per colour for the
// notes), so a click, a drag (pan) or the wheel (zoom) is answered at once even at 2,000 notes.
// Names show when zoomed in, on hover, for the focused note and for contradicted ones.
// Click opens a note, Shift+click focuses on it.

import { bounds, startingPlaces } from "./graph_layout.js";

const DRAG_PIXELS = 4; // a press that moves less than this is a click, not a pan
const KINDS = ["memory", "day", "card", "personal", "procedure", "wiki", "note"];
const positions = new Map(); // path → {x, y}: a redraw (live update, focus) starts from these

function radius(node) {
  return 3 + Math.min(7, Math.sqrt(node.links));
}

export class GraphView {
  constructor(canvas, data, { onOpen, onFocus }) {
    this.canvas = canvas;
    this.nodes = data.nodes;
    this.focus = data.focus;
    this.onOpen = onOpen;
    this.onFocus = onFocus;
    this.index = new Map(this.nodes.map((n, i) => [n.path, i]));
    this.edges = Int32Array.from(data.edges.flat());
    const byLinks = this.nodes.map((_, i) => i).sort((a, b) => this.nodes[b].links - this.nodes[a].links);
    const rank = new Int32Array(this.nodes.length);
    byLinks.forEach((i, r) => (rank[i] = r));
    const places = startingPlaces(this.nodes.length, (i) => positions.get(this.nodes[i].path), (i) => rank[i]);
    this.x = places.x;
    this.y = places.y;
    this.scale = 1;
    this.ox = 0;
    this.oy = 0;
    this.moved = false; // the user panned or zoomed: stop fitting the view to the layout
    this.hover = -1;
    this.drawTimes = [];
    this.started = performance.now();
    this.bind();
    this.resize();
    this.fit();
    this.pending = false;
    this.redraw();
    this.settle(places);
  }

  // the layout in a worker: each message brings new places; the last one says it is done
  settle(places) {
    const worker = new Worker(new URL("./graph_worker.js", import.meta.url), { type: "module" });
    worker.onmessage = ({ data }) => {
      if (!this.canvas.isConnected) return worker.terminate(); // the page moved on
      this.x = data.x;
      this.y = data.y;
      if (!this.moved) this.fit();
      this.redraw();
      if (!data.done) return;
      worker.terminate();
      this.remember();
      requestAnimationFrame(() => {
        const info = this.canvas.dataset;
        info.settled = String(Math.round(performance.now() - this.started));
        info.settledAt = String(performance.now());
        info.frames = String(this.drawTimes.length);
        const sorted = [...this.drawTimes].sort((a, b) => a - b);
        info.longestFrame = String(Math.round(sorted[sorted.length - 1]));
        info.medianFrame = String(Math.round(sorted[Math.floor(sorted.length / 2)]));
      });
    };
    worker.postMessage({ edges: this.edges, places });
  }

  // draw at the next frame (many updates in one frame draw once)
  redraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      if (!this.canvas.isConnected) return;
      const begun = performance.now();
      this.draw();
      this.drawTimes.push(performance.now() - begun);
      const info = this.canvas.dataset;
      if (!info.ready) {
        info.ready = String(Math.round(performance.now() - this.started)); // since the data came
        info.readyAt = String(performance.now()); // on the page's clock (what a benchmark reads)
      }
    });
  }

  bind() {
    const c = this.canvas;
    let press = null;
    c.addEventListener("pointerdown", (e) => {
      press = { x: e.clientX, y: e.clientY, ox: this.ox, oy: this.oy, dragging: false };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener("pointermove", (e) => {
      if (press) {
        const mx = e.clientX - press.x;
        const my = e.clientY - press.y;
        if (press.dragging || Math.hypot(mx, my) > DRAG_PIXELS) {
          press.dragging = true;
          this.moved = true;
          this.ox = press.ox + mx;
          this.oy = press.oy + my;
          this.redraw();
        }
        return;
      }
      const found = this.hit(e);
      if (found !== this.hover) {
        this.hover = found;
        c.style.cursor = found >= 0 ? "pointer" : "grab";
        c.title = found >= 0 ? `${this.nodes[found].name}\n${this.nodes[found].path}` : "";
        this.redraw();
      }
    });
    c.addEventListener("pointerup", (e) => {
      const wasClick = press && !press.dragging;
      press = null;
      if (!wasClick) return;
      const found = this.hit(e);
      if (found < 0) return;
      if (e.shiftKey) this.onFocus(this.nodes[found].path);
      else this.onOpen(this.nodes[found].path);
    });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const { px, py } = this.point(e);
      const factor = Math.exp(-e.deltaY * 0.0015);
      this.ox = px - (px - this.ox) * factor;
      this.oy = py - (py - this.oy) * factor;
      this.scale *= factor;
      this.moved = true;
      this.redraw();
    }, { passive: false });
    this.onResize = () => {
      if (!this.canvas.isConnected) return window.removeEventListener("resize", this.onResize);
      this.resize();
      this.redraw();
    };
    window.addEventListener("resize", this.onResize);
  }

  point(e) {
    const box = this.canvas.getBoundingClientRect();
    return { px: e.clientX - box.left, py: e.clientY - box.top };
  }

  // the note under the pointer (within its radius plus a little), or -1
  hit(e) {
    const { px, py } = this.point(e);
    const { x, y } = this;
    let best = -1;
    let bestD = Infinity;
    for (let i = 0; i < this.nodes.length; i++) {
      const d = Math.hypot(x[i] * this.scale + this.ox - px, y[i] * this.scale + this.oy - py);
      if (d < bestD && d <= radius(this.nodes[i]) * Math.max(1, this.scale) + 4) {
        best = i;
        bestD = d;
      }
    }
    return best;
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    this.width = this.canvas.clientWidth;
    this.height = this.canvas.clientHeight;
    this.canvas.width = Math.round(this.width * ratio);
    this.canvas.height = Math.round(this.height * ratio);
    this.ratio = ratio;
  }

  fit() {
    const b = bounds(this.x, this.y);
    const pad = 30;
    const w = Math.max(b.maxX - b.minX, 1);
    const h = Math.max(b.maxY - b.minY, 1);
    this.scale = Math.min((this.width - 2 * pad) / w, (this.height - 2 * pad) / h, 2.5);
    this.ox = this.width / 2 - ((b.minX + b.maxX) / 2) * this.scale;
    this.oy = this.height / 2 - ((b.minY + b.maxY) / 2) * this.scale;
  }

  remember() {
    this.nodes.forEach((n, i) => positions.set(n.path, { x: this.x[i], y: this.y[i] }));
  }

  // where a note is drawn, in the page's CSS pixels (what a test clicks)
  screenOf(path) {
    const i = this.index.get(path);
    if (i === undefined) return null;
    const box = this.canvas.getBoundingClientRect();
    return {
      x: box.left + this.x[i] * this.scale + this.ox,
      y: box.top + this.y[i] * this.scale + this.oy,
    };
  }

  colours() {
    const style = getComputedStyle(this.canvas);
    const read = (name) => style.getPropertyValue(name).trim();
    const kinds = Object.fromEntries(KINDS.map((k) => [k, read(`--graph-${k}`)]));
    return { kinds, edge: read("--graph-edge"), text: read("--text"), bad: read("--bad"), accent: read("--accent"), bg: read("--bg") };
  }

  draw() {
    const ctx = this.canvas.getContext("2d");
    const colour = this.colours();
    const { x, y } = this;
    const s = this.scale;
    const sx = (i) => x[i] * s + this.ox;
    const sy = (i) => y[i] * s + this.oy;
    ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    const edges = this.edges;
    ctx.lineWidth = 1;
    ctx.strokeStyle = colour.edge;
    ctx.beginPath();
    for (let e = 0; e < edges.length; e += 2) {
      ctx.moveTo(sx(edges[e]), sy(edges[e]));
      ctx.lineTo(sx(edges[e + 1]), sy(edges[e + 1]));
    }
    ctx.stroke();
    if (this.hover >= 0) {
      ctx.strokeStyle = colour.accent;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (let e = 0; e < edges.length; e += 2) {
        if (edges[e] !== this.hover && edges[e + 1] !== this.hover) continue;
        ctx.moveTo(sx(edges[e]), sy(edges[e]));
        ctx.lineTo(sx(edges[e + 1]), sy(edges[e + 1]));
      }
      ctx.stroke();
    }
    const grow = Math.max(0.6, Math.min(2, Math.sqrt(s)));
    for (const kind of KINDS) {
      ctx.fillStyle = colour.kinds[kind];
      ctx.beginPath();
      this.nodes.forEach((n, i) => {
        if (n.kind !== kind) return;
        ctx.moveTo(sx(i) + radius(n) * grow, sy(i));
        ctx.arc(sx(i), sy(i), radius(n) * grow, 0, 2 * Math.PI);
      });
      ctx.fill();
    }
    this.marks(ctx, colour, grow, sx, sy);
    this.labels(ctx, colour, grow, sx, sy);
  }

  // contradicted notes: a red ring and a stroke across; the focused note: a ring of the accent
  marks(ctx, colour, grow, sx, sy) {
    this.nodes.forEach((n, i) => {
      const r = radius(n) * grow;
      if (n.status === "contradicted") {
        ctx.strokeStyle = colour.bad;
        ctx.lineWidth = 2.5;
        ctx.beginPath();
        ctx.arc(sx(i), sy(i), r + 3, 0, 2 * Math.PI);
        ctx.moveTo(sx(i) - r - 3, sy(i) + r + 3);
        ctx.lineTo(sx(i) + r + 3, sy(i) - r - 3);
        ctx.stroke();
      }
      if (n.path === this.focus || i === this.hover) {
        ctx.strokeStyle = colour.accent;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(sx(i), sy(i), r + 6, 0, 2 * Math.PI);
        ctx.stroke();
      }
    });
  }

  labels(ctx, colour, grow, sx, sy) {
    const all = this.scale >= 1.4 || this.nodes.length <= 60;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.lineWidth = 3;
    ctx.strokeStyle = colour.bg;
    this.nodes.forEach((n, i) => {
      const wanted = all || i === this.hover || n.path === this.focus || n.status === "contradicted";
      if (!wanted) return;
      const px = sx(i) + radius(n) * grow + 5;
      const py = sy(i);
      if (px < -200 || px > this.width || py < 0 || py > this.height) return;
      ctx.fillStyle = n.status === "contradicted" ? colour.bad : colour.text;
      ctx.strokeText(n.name, px, py);
      ctx.fillText(n.name, px, py);
    });
  }
}

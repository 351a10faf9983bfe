// A force layout for the link graph that runs a few steps per animation frame (a time budget),
// so the page answers clicks, drags and zooms while it settles: nearby notes push apart (found
// through a grid of cells, never every pair), links pull like springs, a weak pull keeps
// everything near the centre, and a temperature that cools to zero brings it to rest.

const SPRING = 36; // a link's rest length (world units)
const REACH = SPRING * 3; // notes farther apart than this do not push each other
const GRAVITY = 0.04;
const COLD_STEPS = 260; // steps from the starting spiral
const WARM_STEPS = 60; // steps when every note already has a place (a redraw)
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

export class Layout {
  // count notes; edges a flat array [source, target, …] of note indexes; known(i) → {x, y} or null
  constructor(count, edges, known = () => null) {
    this.count = count;
    this.edges = Int32Array.from(edges);
    this.x = new Float32Array(count);
    this.y = new Float32Array(count);
    this.dx = new Float32Array(count);
    this.dy = new Float32Array(count);
    let placed = 0;
    for (let i = 0; i < count; i++) {
      const spot = known(i);
      if (spot) {
        this.x[i] = spot.x;
        this.y[i] = spot.y;
        placed++;
      } else {
        const radius = SPRING * 0.8 * Math.sqrt(i + 0.5); // a sunflower spiral: even spacing
        this.x[i] = radius * Math.cos(i * GOLDEN_ANGLE);
        this.y[i] = radius * Math.sin(i * GOLDEN_ANGLE);
      }
    }
    const warm = count > 0 && placed === count;
    this.steps = warm ? WARM_STEPS : COLD_STEPS;
    this.hot = warm ? SPRING * 0.3 : SPRING * 2;
    this.step = 0;
  }

  get done() {
    return this.step >= this.steps;
  }

  // run steps until `budgetMs` has passed (at least one step unless done)
  run(budgetMs) {
    const end = performance.now() + budgetMs;
    do this.tick();
    while (!this.done && performance.now() < end);
  }

  tick() {
    if (this.done) return;
    const { count, x, y, dx, dy } = this;
    dx.fill(0);
    dy.fill(0);
    this.repel();
    const edges = this.edges;
    for (let e = 0; e < edges.length; e += 2) {
      const a = edges[e];
      const b = edges[e + 1];
      const ex = x[b] - x[a];
      const ey = y[b] - y[a];
      const d = Math.sqrt(ex * ex + ey * ey) || 0.01;
      const pull = d / SPRING; // (d² / k) / d
      dx[a] += ex * pull;
      dy[a] += ey * pull;
      dx[b] -= ex * pull;
      dy[b] -= ey * pull;
    }
    const limit = this.hot * (1 - this.step / this.steps) + 0.2;
    for (let i = 0; i < count; i++) {
      const fx = dx[i] - x[i] * GRAVITY;
      const fy = dy[i] - y[i] * GRAVITY;
      const length = Math.sqrt(fx * fx + fy * fy);
      if (length > 0) {
        const move = Math.min(length, limit) / length;
        x[i] += fx * move;
        y[i] += fy * move;
      }
    }
    this.step++;
  }

  // every pair closer than REACH pushes apart with k² / d, found through cells of REACH
  repel() {
    const { count, x, y, dx, dy } = this;
    const cells = new Map();
    const cellX = new Int32Array(count);
    const cellY = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      cellX[i] = Math.floor(x[i] / REACH);
      cellY[i] = Math.floor(y[i] / REACH);
      const key = cellX[i] * 65536 + cellY[i];
      const bucket = cells.get(key);
      if (bucket) bucket.push(i);
      else cells.set(key, [i]);
    }
    const reach2 = REACH * REACH;
    const k2 = SPRING * SPRING;
    for (let i = 0; i < count; i++) {
      for (let ox = -1; ox <= 1; ox++) {
        for (let oy = -1; oy <= 1; oy++) {
          const bucket = cells.get((cellX[i] + ox) * 65536 + cellY[i] + oy);
          if (!bucket) continue;
          for (const j of bucket) {
            if (j <= i) continue;
            let ex = x[i] - x[j];
            let ey = y[i] - y[j];
            let d2 = ex * ex + ey * ey;
            if (d2 >= reach2) continue;
            if (d2 < 0.01) {
              ex = (i % 7) - 3 + 0.5; // two notes on one spot: part them in a fixed direction
              ey = (j % 5) - 2 + 0.5;
              d2 = ex * ex + ey * ey;
            }
            const push = k2 / d2; // (k² / d) / d
            dx[i] += ex * push;
            dy[i] += ey * push;
            dx[j] -= ex * push;
            dy[j] -= ey * push;
          }
        }
      }
    }
  }

  bounds() {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (let i = 0; i < this.count; i++) {
      minX = Math.min(minX, this.x[i]);
      maxX = Math.max(maxX, this.x[i]);
      minY = Math.min(minY, this.y[i]);
      maxY = Math.max(maxY, this.y[i]);
    }
    return this.count ? { minX, minY, maxX, maxY } : { minX: -1, minY: -1, maxX: 1, maxY: 1 };
  }
}

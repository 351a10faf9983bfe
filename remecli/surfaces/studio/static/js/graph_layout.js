// A force layout for the link graph (run in a worker, graph_worker.js, so the page keeps
// answering while it settles): notes push apart with k²/d (far groups taken as one, Barnes–Hut),
// links pull like springs (d²/k), a pull to the centre keeps the whole together, and a
// temperature that cools to zero over a fixed number of steps brings it to rest.

const SPRING = 36; // a link's rest length (world units)
const THETA = 0.9; // a group farther than its size / THETA pushes as one
const LEAF = 4; // notes a quadtree cell holds before it splits
const GRAVITY = 0.25; // a pull to the centre, proportional to the distance
const COLD_STEPS = 260; // steps from the starting spiral
const WARM_STEPS = 60; // steps when every note already has a place (a redraw)
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

// where each note starts: where it was drawn before (known(i) → {x, y} or null), else on a
// sunflower spiral in the order rank(i) gives (even spacing; rank 0 in the middle); warm when
// all were known
export function startingPlaces(count, known = () => null, rank = (i) => i) {
  const x = new Float32Array(count);
  const y = new Float32Array(count);
  let placed = 0;
  for (let i = 0; i < count; i++) {
    const spot = known(i);
    if (spot) {
      x[i] = spot.x;
      y[i] = spot.y;
      placed++;
    } else {
      const r = rank(i);
      const radius = SPRING * 0.8 * Math.sqrt(r + 0.5);
      x[i] = radius * Math.cos(r * GOLDEN_ANGLE);
      y[i] = radius * Math.sin(r * GOLDEN_ANGLE);
    }
  }
  return { x, y, warm: count > 0 && placed === count };
}

export class Layout {
  // edges a flat array [source, target, …] of note indexes; places from startingPlaces
  constructor(edges, places) {
    this.count = places.x.length;
    this.edges = Int32Array.from(edges);
    this.x = Float32Array.from(places.x);
    this.y = Float32Array.from(places.y);
    this.dx = new Float32Array(this.count);
    this.dy = new Float32Array(this.count);
    this.steps = places.warm ? WARM_STEPS : COLD_STEPS;
    this.hot = places.warm ? SPRING * 0.3 : SPRING * 2;
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

  // every note pushes every other with k² / d, far groups taken as one (Barnes–Hut, θ = THETA)
  repel() {
    const { count, x, y, dx, dy } = this;
    if (count < 2) return;
    const { minX, minY, maxX, maxY } = this.bounds();
    const ids = Array.from({ length: count }, (_, i) => i);
    const tree = build(ids, x, y, minX, minY, Math.max(maxX - minX, maxY - minY) + 1, 0);
    const k2 = SPRING * SPRING;
    const theta2 = THETA * THETA;
    const stack = [];
    for (let i = 0; i < count; i++) {
      stack.push(tree);
      while (stack.length) {
        const cell = stack.pop();
        let ex = x[i] - cell.mx;
        let ey = y[i] - cell.my;
        let d2 = ex * ex + ey * ey;
        if (cell.ids === null && (cell.size * cell.size) / d2 < theta2) {
          const push = (k2 * cell.mass) / d2;
          dx[i] += ex * push;
          dy[i] += ey * push;
          continue;
        }
        if (cell.ids === null) {
          for (const child of cell.children) stack.push(child);
          continue;
        }
        for (const j of cell.ids) {
          if (j === i) continue;
          ex = x[i] - x[j];
          ey = y[i] - y[j];
          d2 = ex * ex + ey * ey;
          if (d2 < 0.01) {
            ex = (i % 7) - 3 + 0.5; // two notes on one spot: part them in a fixed direction
            ey = (j % 5) - 2 + 0.5;
            d2 = ex * ex + ey * ey;
          }
          const push = k2 / d2;
          dx[i] += ex * push;
          dy[i] += ey * push;
        }
      }
    }
  }

  bounds() {
    return bounds(this.x, this.y);
  }
}

// the box around every place
export function bounds(x, y) {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < x.length; i++) {
    minX = Math.min(minX, x[i]);
    maxX = Math.max(maxX, x[i]);
    minY = Math.min(minY, y[i]);
    maxY = Math.max(maxY, y[i]);
  }
  return x.length ? { minX, minY, maxX, maxY } : { minX: -1, minY: -1, maxX: 1, maxY: 1 };
}

// a quadtree cell: its notes' count and centre of mass; a leaf keeps its notes' indexes
function build(ids, x, y, x0, y0, size, depth) {
  let mx = 0;
  let my = 0;
  for (const i of ids) {
    mx += x[i];
    my += y[i];
  }
  const cell = { mass: ids.length, mx: mx / ids.length, my: my / ids.length, size, ids: null, children: [] };
  if (ids.length <= LEAF || depth > 24) {
    cell.ids = ids;
    return cell;
  }
  const half = size / 2;
  const quarters = [[], [], [], []];
  for (const i of ids) quarters[(x[i] >= x0 + half ? 1 : 0) + (y[i] >= y0 + half ? 2 : 0)].push(i);
  quarters.forEach((part, q) => {
    if (part.length) cell.children.push(build(part, x, y, x0 + (q & 1) * half, y0 + (q >> 1) * half, half, depth + 1));
  });
  return cell;
}

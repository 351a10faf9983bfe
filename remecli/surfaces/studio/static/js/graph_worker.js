// The graph's layout off the page's thread: steps in slices of SLICE_MS, the places after each
// slice posted back ({x, y, done}), so drawing, panning and clicks never wait for it.

import { Layout } from "./graph_layout.js";

const SLICE_MS = 40;

self.onmessage = ({ data }) => {
  const layout = new Layout(data.edges, data.places);
  const slice = () => {
    layout.run(SLICE_MS);
    const x = layout.x.slice();
    const y = layout.y.slice();
    self.postMessage({ x, y, done: layout.done, step: layout.step }, [x.buffer, y.buffer]);
    if (!layout.done) setTimeout(slice, 0);
  };
  slice();
};

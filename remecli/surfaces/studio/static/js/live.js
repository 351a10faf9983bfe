// Live pages: poll the server's change stamp (memory_stamp: folder and file times, no file is
// read); when it moves, the navigator and the open page are drawn again. The editor is never
// redrawn under the user: it says the file changed instead (a save then shows both versions).

import { get } from "./api.js";

const EVERY_MS = 600;

export function startLive({ currentPath, redraw, redrawNav }) {
  let last = null;
  let busy = false;
  async function tick() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const path = currentPath();
      const params = path ? { path } : {};
      const { stamp } = await get("stamp", params);
      const key = `${path}|${stamp}`;
      if (last !== null && last.split("|")[0] === path && last !== key) {
        await Promise.all([redrawNav(), redraw()]);
        document.body.dataset.liveUpdates = String(Number(document.body.dataset.liveUpdates || 0) + 1);
      }
      last = key;
    } catch {
      // a failed poll (server restarting, logged out) is retried on the next tick
    } finally {
      busy = false;
    }
  }
  setInterval(tick, EVERY_MS);
  tick();
}

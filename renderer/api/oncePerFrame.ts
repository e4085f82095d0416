/**
 * Live events can arrive hundreds a second. Handing each to React would render hundreds of
 * times a second; the screen only changes once a frame, so work is gathered and done then.
 */

/** Returns a function that schedules `work` for the next animation frame, once however often it is called before then. */
export function oncePerFrame(work: () => void): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      work();
    });
  };
}

// Draws build/icon.png, Capstan's 512×512 app icon, with Node built-ins only. It is the console's
// mark (renderer/public/favicon.svg: a capstan drum seen from the side, white on the accent
// blue) at app-icon size, anti-aliased by supersampling. electron-builder derives the macOS,
// Windows and Linux icons from it. Run: node build/make-icon.mjs
import { writeFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 512;
const INSET = 24; // a little air around the tile, as desktop icons have
const SAMPLES = 4; // per axis, per pixel
const ACCENT = [0x2f, 0x5f, 0xd0];

// The favicon's geometry, in its 32×32 units.
const CORNER = 7;
const HALF_STROKE = 1.2;
const STROKES = [
  [[9, 8], [23, 8]],
  [[9, 24], [23, 24]],
  [[11.5, 8.5], [13, 16], [11.5, 23.5]],
  [[20.5, 8.5], [19, 16], [20.5, 23.5]],
  [[13, 16], [19, 16]],
];
const SEGMENTS = STROKES.flatMap((points) => points.slice(1).map((end, i) => [points[i], end]));

/** Signed distances in favicon units, negative inside. */
const tile = (x, y) => {
  const half = 16 - CORNER;
  const dx = Math.max(Math.abs(x - 16) - half, 0);
  const dy = Math.max(Math.abs(y - 16) - half, 0);
  return Math.hypot(dx, dy) - CORNER;
};
const segment = (x, y, [ax, ay], [bx, by]) => {
  const [px, py, vx, vy] = [x - ax, y - ay, bx - ax, by - ay];
  const t = Math.max(0, Math.min(1, (px * vx + py * vy) / (vx * vx + vy * vy)));
  return Math.hypot(px - vx * t, py - vy * t);
};
// Round caps and joins: a point is inked when it is within half a stroke of any segment.
const inked = (x, y) => SEGMENTS.some(([a, b]) => segment(x, y, a, b) <= HALF_STROKE);

const scale = 32 / (SIZE - 2 * INSET);
const rows = [];
for (let y = 0; y < SIZE; y++) {
  const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
  for (let x = 0; x < SIZE; x++) {
    let covered = 0;
    let white = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        const u = (x + (sx + 0.5) / SAMPLES - INSET) * scale;
        const v = (y + (sy + 0.5) / SAMPLES - INSET) * scale;
        if (tile(u, v) > 0) continue;
        covered += 1;
        if (inked(u, v)) white += 1;
      }
    }
    const share = covered ? white / covered : 0;
    const channel = (i) => Math.round(ACCENT[i] * (1 - share) + 255 * share);
    row.set([channel(0), channel(1), channel(2), Math.round((covered / SAMPLES ** 2) * 255)], 1 + x * 4);
  }
  rows.push(row);
}

const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const framing = Buffer.alloc(8);
  framing.writeUInt32BE(data.length, 0);
  framing.writeUInt32BE(crc32(body), 4);
  return Buffer.concat([framing.subarray(0, 4), body, framing.subarray(4)]);
};

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, standard filtering, no interlace

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('./icon.png', import.meta.url), png);
console.log(`build/icon.png: ${SIZE}×${SIZE}, ${png.length} bytes`);

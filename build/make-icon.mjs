// Draws build/icon.png, Capstan's 512×512 app icon, with Node built-ins only: a white capstan
// head (a ring, a hub and eight bars) on a blue rounded square, anti-aliased by supersampling.
// electron-builder derives the macOS, Windows and Linux icons from it.
// Run: node build/make-icon.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync, crc32 } from 'node:zlib';

const SIZE = 512;
const SAMPLES = 4; // per axis, per pixel
const C = SIZE / 2;

const TOP = [37, 99, 235]; // blue-600
const BOTTOM = [30, 58, 138]; // blue-900

/** Signed distances (negative inside) of the shapes, in pixels. */
const roundedSquare = (x, y, inset = 24, radius = 104) => {
  const half = C - inset - radius;
  const dx = Math.max(Math.abs(x - C) - half, 0);
  const dy = Math.max(Math.abs(y - C) - half, 0);
  return Math.hypot(dx, dy) - radius;
};
const circle = (x, y, cx, cy, r) => Math.hypot(x - cx, y - cy) - r;
const segment = (x, y, ax, ay, bx, by, halfWidth) => {
  const [px, py, vx, vy] = [x - ax, y - ay, bx - ax, by - ay];
  const t = Math.max(0, Math.min(1, (px * vx + py * vy) / (vx * vx + vy * vy)));
  return Math.hypot(px - vx * t, py - vy * t) - halfWidth;
};

const BARS = Array.from({ length: 8 }, (_, i) => {
  const angle = (i * Math.PI) / 4 + Math.PI / 8;
  return [Math.cos(angle), Math.sin(angle)];
});

/** Negative inside the white mark: a ring, a hub and eight bars with round grips, seen from above. */
const mark = (x, y) => {
  const ring = Math.abs(circle(x, y, C, C, 118)) - 18;
  const hub = circle(x, y, C, C, 44);
  let shape = Math.min(ring, hub);
  for (const [cos, sin] of BARS) {
    shape = Math.min(
      shape,
      segment(x, y, C + cos * 44, C + sin * 44, C + cos * 190, C + sin * 190, 11),
      circle(x, y, C + cos * 190, C + sin * 190, 20),
    );
  }
  return shape;
};

const rows = [];
for (let y = 0; y < SIZE; y++) {
  const row = Buffer.alloc(1 + SIZE * 4); // filter byte 0, then RGBA
  for (let x = 0; x < SIZE; x++) {
    let background = 0;
    let foreground = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        const [px, py] = [x + (sx + 0.5) / SAMPLES, y + (sy + 0.5) / SAMPLES];
        if (roundedSquare(px, py) <= 0) {
          background += 1;
          if (mark(px, py) <= 0) foreground += 1;
        }
      }
    }
    const n = SAMPLES * SAMPLES;
    const t = y / (SIZE - 1);
    const alpha = background / n;
    const white = background ? foreground / background : 0;
    const channel = (i) => Math.round(((1 - white) * (TOP[i] * (1 - t) + BOTTOM[i] * t) + white * 255));
    row.set([channel(0), channel(1), channel(2), Math.round(alpha * 255)], 1 + x * 4);
  }
  rows.push(row);
}

const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no interlace

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('./icon.png', import.meta.url), png);
console.log(`build/icon.png: ${SIZE}×${SIZE}, ${png.length} bytes`);

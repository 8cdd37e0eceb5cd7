// Where the figure's warning and error pins go (pure geometry, graph units).
//
// Pins are callouts in a band above the layout, each joined to the box it
// points at by a leader line: inside the graph a pin would cover the titles
// and values of the boxes around it. Each pin sits as close as it can to
// right above its box (its right end over the box's right edge); pins that
// would overlap go to the next row up. The band's room is known from the
// start: the camera's "Fit" includes every pin the run will show
// (figureBounds), so a pin is never cut off at the figure's edge, and the
// view does not jump when one appears. Long messages wrap (the full text is
// the pin's tooltip, the step's sentence and the console line). The compact
// overview, whose boxes are small, draws pins as badges on their boxes instead.

import { unionBox } from './camera.js';

const CHAR_W = 7.3; // 12.5px semibold sans, average advance (the figure's smallest font, records.js)
const LINE_H = 16;
const PAD_X = 10;
const PAD_Y = 6;
const GAP = 4; // between a pin and its box, and between stacked pins
const MAX_LINES = 3;

/** Splits a message into at most `maxLines` lines of at most `width` characters, at spaces when it can. */
export function wrapText(text, width, maxLines = MAX_LINES) {
  const words = String(text).split(/\s+/).filter(Boolean);
  const lines = [];
  let line = '';
  for (let w of words) {
    while (w.length > width) { // a word longer than a line (a long shape or name) is cut
      if (line) { lines.push(line); line = ''; }
      lines.push(w.slice(0, width)); w = w.slice(width);
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= width) line += ` ${w}`;
    else { lines.push(line); line = w; }
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    const last = lines[maxLines - 1];
    lines.length = maxLines;
    lines[maxLines - 1] = `${last.length >= width ? last.slice(0, width - 1) : last}…`;
  }
  return lines.length ? lines : [''];
}

/**
 * Places pins: [{ pin, x, y, w, h, lines, leader }] in graph units, above the
 * layout (y < 0). `leader` ({x1, y1, x2, y2}) runs from the pin's bottom to
 * the top of the box `boxOf(pin)` points at; null when it points at none.
 * Compact: badges (placeBadges). `textWidth(line)`: the drawn width of a
 * line (the view measures it in the pin's font; the default estimates).
 */
export function placePins(pins, boxOf, { compact = false, lineChars = 40, textWidth = (t) => t.length * CHAR_W } = {}) {
  if (compact) return placeBadges(pins, boxOf);
  const rows = []; // per row: its height and the x-intervals taken
  const placed = pins.map((pin) => {
    const box = boxOf(pin);
    const icon = pin.level === 'error' ? '✖' : '⚠';
    const lines = compact ? [`${icon} ${pin.level}`] : wrapText(`${icon} ${pin.message}`, lineChars);
    const w = Math.ceil(Math.max(...lines.map(textWidth))) + 2 * PAD_X;
    const h = lines.length * LINE_H + 2 * PAD_Y;
    const x = Math.max(0, box ? box.x + box.w + 10 - w : 0);
    let r = rows.findIndex((row) => row.taken.every(([a, b]) => x + w + GAP <= a || x >= b + GAP));
    if (r < 0) { r = rows.length; rows.push({ h: 0, taken: [] }); }
    rows[r].taken.push([x, x + w]); rows[r].h = Math.max(rows[r].h, h);
    return { pin, box, x, w, h, lines, row: r };
  });
  // Row 0 ends just above the layout's top margin; each next row sits above the last.
  const rowTop = []; let bottom = 2;
  for (const row of rows) { rowTop.push(bottom - row.h); bottom -= row.h + GAP; }
  return placed.map(({ pin, box, x, w, h, lines, row }) => {
    const y = rowTop[row] + rows[row].h - h; // bottom-aligned within its row
    let leader = null;
    if (box) {
      const bx = Math.min(box.x + box.w - 12, Math.max(box.x + 12, x + w - 14));
      leader = { x1: Math.min(x + w - 10, Math.max(x + 10, bx)), y1: y + h, x2: bx, y2: box.y };
    }
    return { pin, x, y, w, h, lines, leader };
  });
}

/**
 * The compact overview draws a box's pins as small badges on its top-right
 * corner (right to left in order; the level is the icon, the message the
 * tooltip): its boxes are small and dense, and a band of callouts would
 * shrink the whole figure.
 */
function placeBadges(pins, boxOf) {
  const R = 9; // 12.5-px icon inside
  const count = new Map();
  return pins.map((pin) => {
    const box = boxOf(pin);
    const key = box ? `${box.x},${box.y}` : 'figure';
    const n = count.get(key) || 0; count.set(key, n + 1);
    const cx = (box ? box.x + box.w - R : R + 2) - n * (2 * R + 2);
    const cy = box ? box.y : R + 2;
    return { pin, x: cx - R, y: cy - R, w: 2 * R, h: 2 * R, lines: [pin.level === 'error' ? '✖' : '⚠'], badge: true, leader: null };
  });
}

/** The layout's own box ({x, y, width, height}, from 0,0) grown to hold every placed pin. */
export function figureBounds(layout, placed = []) {
  const u = unionBox([{ x: 0, y: 0, w: layout.width, h: layout.height }, ...placed]);
  return { x: u.x, y: u.y, width: u.w, height: u.h };
}

export const PIN_TEXT = { padX: PAD_X, padY: PAD_Y, lineH: LINE_H };

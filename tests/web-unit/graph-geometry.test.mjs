// Edge labels sit at curveMid(), computed when the graph is drawn instead of
// measuring the path (getTotalLength/getPointAtLength force a layout): check
// that it is the midpoint along the curve's length.
import test from 'node:test';
import assert from 'node:assert/strict';
import { curve, curveMid } from '../../web/src/model/edges.js';

/** Arc-length midpoint of the cubic in an `M x,y C ...` path, by sampling. */
function arcMid(d) {
  const n = d.match(/-?[\d.]+(e-?\d+)?/g).map(Number);
  const [x0, y0, x1, y1, x2, y2, x3, y3] = n;
  const at = (t) => {
    const u = 1 - t;
    return [u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3, u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3];
  };
  const N = 20000; const pts = [at(0)]; const len = [0];
  for (let i = 1; i <= N; i++) { const p = at(i / N); const q = pts[i - 1]; pts.push(p); len.push(len[i - 1] + Math.hypot(p[0] - q[0], p[1] - q[1])); }
  const half = len[N] / 2; const i = len.findIndex((l) => l >= half);
  return { x: pts[i][0], y: pts[i][1] };
}

test('curveMid is the midpoint along the drawn edge (down, up, sideways, short)', () => {
  for (const [x1, y1, x2, y2] of [[10, 20, 300, 400], [300, 400, 10, 20], [0, 0, 500, 10], [50, 100, 50, 110], [120.5, 33.25, -80, 260]]) {
    const m = curveMid(x1, y1, x2, y2); const ref = arcMid(curve(x1, y1, x2, y2));
    assert.ok(Math.abs(m.x - ref.x) < 0.05 && Math.abs(m.y - ref.y) < 0.05, `${[x1, y1, x2, y2]}: ${JSON.stringify(m)} vs ${JSON.stringify(ref)}`);
  }
});

// The embed's guest side without a browser: hash options, the first step,
// and the messages it posts to the host page (with a fake window).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readEmbedParams, EmbedGuest } from '../../web/src/embed-guest.js';

test('readEmbedParams: flags, step, theme, id; bad values fall back', () => {
  assert.deepEqual(readEmbedParams('#lesson=legacy-hook'), { program: false, timeline: false, autoplay: false, autosize: false, theme: 'auto', themeAsked: false, step: null, id: null });
  assert.deepEqual(readEmbedParams('#s=abc&program=1&timeline=1&autoplay&autosize=1&theme=dark&step=12&id=hg3'),
    { program: true, timeline: true, autoplay: true, autosize: true, theme: 'dark', themeAsked: true, step: 12, id: 'hg3' });
  assert.equal(readEmbedParams('#step=end').step, 'end');
  assert.equal(readEmbedParams('#step=-3').step, null);
  assert.equal(readEmbedParams('#step=two').step, null);
  assert.equal(readEmbedParams('#theme=purple').theme, 'auto');
  assert.equal(readEmbedParams('#program=0').program, false);
  assert.equal(readEmbedParams('#timeline=no').timeline, false);
  assert.equal(readEmbedParams('#autoplay=false').autoplay, false);
});

function fakeWindow({ reduce = false, hosted = true } = {}) {
  const posted = [];
  const win = { matchMedia: (q) => ({ matches: reduce && q.includes('reduce') }), addEventListener() {} };
  win.parent = hosted ? { postMessage: (msg, origin) => posted.push({ msg, origin }) } : win;
  const doc = { documentElement: { classList: { toggle() {} }, dataset: {}, style: {} }, styleSheets: [], head: { appendChild() {} } };
  return { win, doc, posted };
}

test('step posts every new step once, and done when it arrives at the last one', () => {
  const { win, doc, posted } = fakeWindow();
  const g = new EmbedGuest({ params: readEmbedParams('#lesson=1&id=x'), win, doc });
  g.ready(3); g.step(0, 3, 'Start'); g.step(0, 3, 'Start'); g.step(3, 3, 'last'); g.step(2, 3, 'b'); g.step(3, 3, 'last');
  g.error('boom');
  assert.deepEqual(posted.map((p) => [p.msg.type, p.msg.step ?? p.msg.total ?? p.msg.message]),
    [['ready', 3], ['step', 0], ['step', 3], ['done', 3], ['step', 2], ['step', 3], ['done', 3], ['error', 'boom']]);
  assert.ok(posted.every((p) => p.msg.hookgrad === 'embed' && p.msg.v === 1 && p.msg.id === 'x' && p.origin === '*'));
});

test('a page that is not framed posts nothing; autoplay yields to prefers-reduced-motion', () => {
  const top = fakeWindow({ hosted: false });
  new EmbedGuest({ params: readEmbedParams('#autoplay=1'), win: top.win, doc: top.doc }).step(1, 2, 'x');
  assert.deepEqual(top.posted, []);
  const calm = fakeWindow({ reduce: true });
  assert.equal(new EmbedGuest({ params: readEmbedParams('#autoplay=1'), win: calm.win, doc: calm.doc }).autoplay, false);
  const busy = fakeWindow();
  assert.equal(new EmbedGuest({ params: readEmbedParams('#autoplay=1'), win: busy.win, doc: busy.doc }).autoplay, true);
});

test('started: step=end seeks the last step; autoplay plays once, or shows the end under reduced motion', () => {
  const player = () => ({ calls: [], seek(k) { this.calls.push(['seek', k]); }, play() { this.calls.push(['play']); } });
  const mk = (hash, reduce = false) => { const w = fakeWindow({ reduce }); return new EmbedGuest({ params: readEmbedParams(hash), win: w.win, doc: w.doc }); };
  let p = player(); mk('#step=end').started({ total: 9, player: p });
  assert.deepEqual(p.calls, [['seek', 9]]);
  assert.equal(mk('#step=4').firstStep(7), 4);
  assert.equal(mk('#step=end').firstStep(7), 7);
  const g = mk('#autoplay=1'); let followed = 0;
  p = player(); g.started({ total: 9, player: p, follow: () => followed++ });
  g.started({ total: 9, player: p, follow: () => followed++ });
  assert.deepEqual(p.calls, [['play']], 'autoplay once, not again on the next run');
  assert.equal(followed, 1);
  p = player(); mk('#autoplay=1', true).started({ total: 9, player: p });
  assert.deepEqual(p.calls, [['seek', 9]]);
});

test('a host hears ready before any step: the first frame (drawn before the run is ready) is held until ready', () => {
  const { win, doc, posted } = fakeWindow();
  const g = new EmbedGuest({ params: readEmbedParams('#lesson=1'), win, doc });
  g.step(4, 9, 'Forward pass recorded'); // the controller draws the first frame, then reports the run
  assert.deepEqual(posted, []);
  g.ready(9);
  assert.deepEqual(posted.map((p) => [p.msg.type, p.msg.step ?? p.msg.total]), [['ready', 9], ['step', 4]]);
});

test('theme: inside a host page the light look unless the host asks; on its own, the reader\'s system', () => {
  const hosted = fakeWindow();
  new EmbedGuest({ params: readEmbedParams('#lesson=1'), win: hosted.win, doc: hosted.doc });
  assert.equal(hosted.doc.documentElement.dataset.theme, 'light');
  const asked = fakeWindow();
  new EmbedGuest({ params: readEmbedParams('#lesson=1&theme=auto'), win: asked.win, doc: asked.doc });
  assert.equal(asked.doc.documentElement.dataset.theme, undefined, 'theme=auto follows the system');
  const alone = fakeWindow({ hosted: false });
  new EmbedGuest({ params: readEmbedParams('#lesson=1'), win: alone.win, doc: alone.doc });
  assert.equal(alone.doc.documentElement.dataset.theme, undefined);
});

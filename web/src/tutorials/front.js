// The front page: the lesson list comes from the playground's own lesson
// gallery (model/lessons.js), so a new lesson shows up here without an edit.
import { LESSONS } from '../model/lessons.js';
import './tutorial.css';

const list = document.getElementById('lesson-list');
list.replaceChildren(...LESSONS.map((lesson) => {
  const li = document.createElement('li');
  li.className = 'lesson';
  const a = document.createElement('a');
  a.href = `./playground.html#lesson=${encodeURIComponent(lesson.id)}`;
  const n = document.createElement('span');
  n.className = 'lesson-n'; n.textContent = String(lesson.n);
  const title = document.createElement('span');
  title.className = 'lesson-title'; title.textContent = lesson.title;
  a.append(n, title);
  const p = document.createElement('p');
  // The lesson's first sentence is its summary.
  const first = (lesson.text?.[0] || '').split(/(?<=[.!?])\s/)[0];
  p.textContent = first;
  li.append(a, p);
  return li;
}));

// The faithfulness corpus: every tests/python/corpus/NAME.py is run through
// `hookgrad run NAME.py` (cwd tests/python/corpus) and compared with what
// real PyTorch printed for it, recorded in tests/python/expected/NAME.json by
// gen_expected.py. Compared (README.md in this directory):
//   - stdout, exactly, after replacing object addresses 0x... by 0xADDR on both sides;
//   - the exit code (0, or 1 after an uncaught exception);
//   - the uncaught exception ("Type: message") and the line of its last frame in NAME.py;
//   - the warnings written to stderr, in order: category and message, and the
//     line when the warning is attributed to the program itself.
// Run one program:  node --test --test-name-pattern='^error_hook_raises$' tests/python/corpus.test.mjs
// or several:       HOOKGRAD_CORPUS=video_1_2_with_hooks,seed_adjoint_layers node --test tests/python/corpus.test.mjs
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const corpusDir = path.join(here, 'corpus');
const expectedDir = path.join(here, 'expected');
const TIMEOUT_MS = 60_000;
const CONCURRENCY = 2;

// ---------------------------------------------------------------- the CLI

/** The `hookgrad` CLI: the root package.json's bin, else web/pkg/cli.mjs. */
function findCli() {
  const candidates = [];
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.hookgrad;
    if (bin) candidates.push(path.join(root, bin));
  } catch { /* no package.json bin: the fallback below */ }
  candidates.push(path.join(root, 'web', 'pkg', 'cli.mjs'));
  return { cli: candidates.find((c) => fs.existsSync(c)) ?? null, candidates };
}

function runCli(cli, name) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'run', `${name}.py`], {
      cwd: corpusDir,
      env: { ...process.env, PYTHONHASHSEED: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

// ---------------------------------------------------------------- parsing stderr
// The same rules as gen_expected.py's parse_warnings / parse_exception.

const WARNING_HEAD = /^(.+?):(\d+): ((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*Warning): (.*)$/;
const FRAME = /^ {2}File "(.*)", line (\d+)/;
const TRACEBACK_HEAD = 'Traceback (most recent call last):';

/** Is `file` (as Python printed it) the program itself? */
const isScript = (file, script) => path.basename(file) === script;

/** Warnings as Python writes them: header, message lines, indented source line. */
export function parseWarnings(stderr, script) {
  const lines = stderr.split('\n');
  const out = [];
  for (let i = 0; i < lines.length;) {
    const m = WARNING_HEAD.exec(lines[i]);
    if (!m) { i += 1; continue; }
    let message = m[4];
    i += 1;
    while (i < lines.length && !lines[i].startsWith('  ') && !WARNING_HEAD.test(lines[i])
      && lines[i] !== TRACEBACK_HEAD && !(i === lines.length - 1 && lines[i] === '')) {
      message += `\n${lines[i]}`;
      i += 1;
    }
    const mine = isScript(m[1], script);
    out.push({ category: m[3], message, file: mine ? script : '<torch>', line: mine ? Number(m[2]) : null });
  }
  return out;
}

/** The last traceback's exception text and the line of its last frame in the program. */
export function parseException(stderr, script) {
  const lines = stderr.split('\n');
  const start = lines.lastIndexOf(TRACEBACK_HEAD);
  if (start < 0) return { exception: null, line: null };
  let k = start + 1;
  let line = null;
  for (; k < lines.length && lines[k].startsWith('  '); k += 1) {
    const m = FRAME.exec(lines[k]);
    if (m && isScript(m[1], script)) line = Number(m[2]);
  }
  const text = lines.slice(k).join('\n').replace(/\n+$/, '');
  return { exception: text || null, line };
}

// ---------------------------------------------------------------- comparing

const normalise = (s) => s.replace(/0x[0-9a-fA-F]+/g, '0xADDR');

/** A line diff (LCS on the part between the common prefix and suffix), with context. */
export function diffLines(expected, actual, context = 3) {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre += 1;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf += 1;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const ops = []; // [' ' | '-' | '+', text, expected line no | null, actual line no | null]
  if (am.length * bm.length <= 250_000) {
    const n = am.length; const m = bm.length;
    const L = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        L[i][j] = am[i] === bm[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
      }
    }
    let i = 0; let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) { ops.push([' ', am[i], pre + i, pre + j]); i += 1; j += 1; }
      else if (i < n && (j === m || L[i + 1][j] >= L[i][j + 1])) { ops.push(['-', am[i], pre + i, null]); i += 1; }
      else { ops.push(['+', bm[j], null, pre + j]); j += 1; }
    }
  } else {
    am.forEach((t, i) => ops.push(['-', t, pre + i, null]));
    bm.forEach((t, j) => ops.push(['+', t, null, pre + j]));
  }
  const all = [
    ...a.slice(Math.max(0, pre - context), pre).map((t, k) => [' ', t, pre - Math.min(pre, context) + k, null]),
    ...ops,
    ...a.slice(a.length - suf, a.length - suf + context).map((t, k) => [' ', t, a.length - suf + k, null]),
  ];
  // Keep the changed lines and `context` lines around each.
  const keep = new Array(all.length).fill(false);
  all.forEach((op, k) => {
    if (op[0] !== ' ') for (let d = -context; d <= context; d += 1) if (all[k + d]) keep[k + d] = true;
  });
  const out = [];
  let skipped = false;
  all.forEach((op, k) => {
    if (!keep[k]) { skipped = true; return; }
    if (skipped && out.length) out.push('  ...');
    skipped = false;
    const no = op[2] !== null ? op[2] + 1 : op[3] + 1;
    out.push(`${op[0]} ${String(no).padStart(4)} | ${JSON.stringify(op[1]).slice(1, -1)}`);
  });
  return out.join('\n');
}

const tail = (s, n = 25) => s.split('\n').slice(-n).join('\n');

function describeWarning(w) {
  const where = w.file === '<torch>' ? 'in torch' : `${w.file}:${w.line}`;
  return `${w.category}: ${w.message}  [${where}]`;
}

function check(name, exp, got) {
  const script = `${name}.py`;
  const problems = [];
  if (got.timedOut) {
    problems.push(`timed out after ${TIMEOUT_MS / 1000} s; stderr so far:\n${tail(got.stderr)}`);
    return problems;
  }
  if (got.code !== exp.exit_code) {
    problems.push(`exit code: PyTorch ${exp.exit_code}, hookgrad ${got.code ?? got.signal}; hookgrad's stderr ends:\n${tail(got.stderr)}`);
  }
  const want = normalise(exp.stdout);
  const have = normalise(got.stdout);
  if (want !== have) {
    problems.push(`stdout differs (- PyTorch, + hookgrad; each line numbered in its own output):\n${diffLines(want, have)}`);
  }
  const ge = parseException(got.stderr, script);
  if (ge.exception !== exp.exception || (exp.exception !== null && ge.line !== exp.exception_line)) {
    const fmt = (e, l) => (e === null ? 'no exception' : `${e}  [${script} line ${l}]`);
    problems.push(`uncaught exception:\n  PyTorch: ${fmt(exp.exception, exp.exception_line)}\n  hookgrad: ${fmt(ge.exception, ge.line)}`
      + (exp.exception !== ge.exception ? `\nhookgrad's stderr ends:\n${tail(got.stderr)}` : ''));
  }
  const ew = exp.warnings.map(describeWarning);
  const gw = parseWarnings(got.stderr, script).map(describeWarning);
  if (ew.join('\n') !== gw.join('\n')) {
    problems.push(`warnings differ (- PyTorch, + hookgrad):\n${diffLines(ew.join('\n'), gw.join('\n'), 1)}`);
  }
  return problems;
}

// ---------------------------------------------------------------- the tests

const only = (process.env.HOOKGRAD_CORPUS ?? '').split(',').map((s) => s.trim().replace(/\.py$/, '')).filter(Boolean);
const programs = fs.readdirSync(corpusDir).filter((f) => f.endsWith('.py')).map((f) => f.slice(0, -3)).sort();
const expected = new Set(fs.readdirSync(expectedDir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)));
const selected = programs.filter((p) => expected.has(p) && (only.length === 0 || only.includes(p)));
const { cli, candidates } = findCli();

test('corpus: every program has a recorded PyTorch run, and every record a program', () => {
  const noRecord = programs.filter((p) => !expected.has(p));
  const noProgram = [...expected].filter((e) => !programs.includes(e));
  assert.deepEqual({ noRecord, noProgram }, { noRecord: [], noProgram: [] },
    'run /work/torchenv/bin/python tests/python/gen_expected.py NAME (see tests/python/README.md)');
  const unknown = only.filter((p) => !programs.includes(p));
  assert.deepEqual(unknown, [], `HOOKGRAD_CORPUS names no such program: ${unknown.join(', ')}`);
});

if (!cli) {
  test('corpus: the hookgrad CLI is built', () => {
    assert.fail(`the hookgrad CLI was not found (looked for ${candidates.map((c) => path.relative(root, c)).join(' and ')}); `
      + `build it (npm run build) — the ${selected.length} corpus programs cannot run without it`);
  });
} else {
  describe('corpus: hookgrad run NAME.py prints what python NAME.py prints with PyTorch', { concurrency: CONCURRENCY }, () => {
    for (const name of selected) {
      it(name, async () => {
        const exp = JSON.parse(fs.readFileSync(path.join(expectedDir, `${name}.json`), 'utf8'));
        const got = await runCli(cli, name);
        const problems = check(name, exp, got);
        if (problems.length) assert.fail(`${name}.py (PyTorch ${exp.torch}):\n\n${problems.join('\n\n')}`);
      });
    }
  });
}

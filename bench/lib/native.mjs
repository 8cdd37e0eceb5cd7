// The native peer: hookgrad's Rust core in release mode (bench/native),
// built and run through cargo; its JSON output carries times, losses and
// (with --check) gradients.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = path.join(root, 'bench', 'native', 'Cargo.toml');

// A workspace member: its binary lands in the root target dir, `native` profile (opt-level 3).
const binary = path.join(root, 'target', 'native', process.platform === 'win32' ? 'hookgrad-bench-native.exe' : 'hookgrad-bench-native');

/**
 * `cargo run --profile native` (builds if needed) with `{ build: true }`; otherwise
 * the binary that build produced, so every timed round uses the same build
 * even if crate/ changes while the bench runs.
 */
export function runNative(args, { timeout = 600_000, build = false } = {}) {
  const [cmd, argv] = build ? ['cargo', ['run', '--profile', 'native', '--quiet', '--manifest-path', manifest, '--', ...args]] : [binary, args];
  const r = spawnSync(cmd, argv, {
    encoding: 'utf8', maxBuffer: 64 << 20, timeout,
  });
  if (r.error) throw new Error(`${build ? 'cargo' : 'native bench'}: ${r.error.message}`);
  if (r.status !== 0) {
    const err = (r.stderr || '').split('\n').filter((l) => /^error/.test(l));
    throw new Error(err.length ? `cargo build failed: ${err.slice(0, 2).join('; ')}` : `native bench exited with ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-2).join(' | ')}`);
  }
  return JSON.parse(r.stdout);
}

/** A native result in the runner's {loss, grads} shape. */
export const asResult = (o) => ({ loss: o.loss, grads: (o.grads || []).map((g) => Float64Array.from(g)), calls: o.calls });

#!/usr/bin/env node
// Makes web/pkg an npm-ready package: package.json from the template
// crate/js/package.json (version = the wasm crate's, every other .d.ts of the
// facade added to `files`, with an export when it is a types-only module such
// as protocol.d.ts) and README.md from docs/api.md. Run by build-wasm.sh.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkgDir = path.resolve(root, process.argv[2] || 'web/pkg');
const tpl = JSON.parse(fs.readFileSync(path.join(root, 'crate/js/package.json'), 'utf8'));
const cargo = fs.readFileSync(path.join(root, 'crate/wasm/Cargo.toml'), 'utf8');
const version = cargo.match(/^\[package\][^[]*?^version\s*=\s*"([^"]+)"/ms)?.[1];
if (!version) throw new Error('build-pkg: no version in crate/wasm/Cargo.toml [package]');
tpl.version = version;

for (const f of tpl.files) if (!fs.existsSync(path.join(pkgDir, f))) throw new Error(`build-pkg: ${f} is missing from ${pkgDir}`);
for (const f of fs.readdirSync(pkgDir).sort()) {
  if (!f.endsWith('.d.ts') || tpl.files.includes(f)) continue;
  tpl.files.push(f);
  const js = f.replace(/\.d\.ts$/, '.js');
  if (!fs.existsSync(path.join(pkgDir, js))) tpl.exports[`./${f.replace(/\.d\.ts$/, '')}`] = { types: `./${f}` };
}
tpl.files.push('README.md');
fs.writeFileSync(path.join(pkgDir, 'package.json'), `${JSON.stringify(tpl, null, 2)}\n`);
const api = path.join(root, 'docs/api.md');
// Links into the repository (../web/EMBED.md) mean nothing inside the package: name the file instead.
if (fs.existsSync(api)) {
  const text = fs.readFileSync(api, 'utf8').replace(/\[([^\]]+)\]\(\.\.\/([^)#\s]+)(#[^)\s]*)?\)/g, (m, label, file) => `${label} (\`${file}\` in the hookgrad repository)`);
  fs.writeFileSync(path.join(pkgDir, 'README.md'), text);
}
else fs.writeFileSync(path.join(pkgDir, 'README.md'), '# hookgrad\n\nPyTorch-faithful autograd and hooks in WebAssembly.\n');
console.error(`[build] web/pkg/package.json: hookgrad@${version}, ${tpl.files.length} files`);

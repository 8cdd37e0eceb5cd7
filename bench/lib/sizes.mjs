// W5: bytes on the wire, raw and gzip -9 (per file, as a server would send them).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export function fileSize(f) {
  const buf = Buffer.isBuffer(f) ? f : fs.readFileSync(f);
  return { raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length };
}

export function dirFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else out.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

export function sum(files) {
  return files.reduce((a, f) => { const s = fileSize(f); return { raw: a.raw + s.raw, gzip: a.gzip + s.gzip }; }, { raw: 0, gzip: 0 });
}

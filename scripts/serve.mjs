#!/usr/bin/env node
// Zero-dependency static server for the built site (web/dist) on 127.0.0.1.
// PORT env (default 5173; 0 picks a free port), BASE env (a sub-path such as
// /hookgrad/, default /). Prints the URL.
//
// It sends what any static host of hookgrad must send (web/EMBED.md, "What
// your server must send"):
// - `Access-Control-Allow-Origin: *` on every file, so a page on another
//   origin can load hookgrad-element.js and import pkg/hookgrad.js as module
//   scripts (module scripts and their fetch of the .wasm are CORS requests);
// - `Content-Type: application/wasm` for .wasm (WebAssembly.compileStreaming
//   and instantiateStreaming refuse anything else);
// - validators (ETag, Last-Modified) with `Cache-Control: no-cache`, so the
//   file names can stay stable while several embeds on one page, and later
//   visits, revalidate with a 304 instead of downloading the engine again.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.map': 'application/json', '.md': 'text/markdown; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};
const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Headers every response carries (CORS for cross-origin module scripts, fetches and the wasm). */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'if-none-match, if-modified-since, range',
  'cross-origin-resource-policy': 'cross-origin',
};

/**
 * Serves `root` under the path prefix `base` (e.g. '/hookgrad/'). `onRequest`
 * ({method, path, status}) sees every request (tests count downloads with it).
 */
export function serve({ root = path.join(HERE, '..', 'web', 'dist'), port = 5173, host = '127.0.0.1', base = '/', onRequest = null } = {}) {
  const dir = path.resolve(root);
  const prefix = `/${String(base).replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  const server = http.createServer((req, res) => {
    const done = (status, headers = {}, body) => {
      res.writeHead(status, { ...CORS_HEADERS, ...headers });
      res.end(body);
      onRequest?.({ method: req.method, path: req.url, status });
    };
    if (req.method === 'OPTIONS') { done(204, { 'access-control-max-age': '86400' }); return; }
    if (req.method !== 'GET' && req.method !== 'HEAD') { done(405, { allow: 'GET, HEAD, OPTIONS' }, 'method not allowed'); return; }
    let pathname;
    try { pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname); } catch { done(400, {}, 'bad request'); return; }
    if (`${pathname}/` === prefix) { done(301, { location: prefix }); return; }
    if (!pathname.startsWith(prefix)) { done(404, { 'content-type': 'text/plain' }, 'not found'); return; }
    pathname = `/${pathname.slice(prefix.length)}`;
    if (pathname.endsWith('/')) pathname += 'index.html';
    const file = path.resolve(dir, `.${pathname}`);
    if (file !== dir && !file.startsWith(dir + path.sep)) { done(403, {}, 'forbidden'); return; }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) { done(404, { 'content-type': 'text/plain' }, 'not found'); return; }
      const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const headers = {
        'content-type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'cache-control': 'no-cache', etag, 'last-modified': st.mtime.toUTCString(), 'x-content-type-options': 'nosniff',
      };
      const inm = req.headers['if-none-match'];
      const ims = Date.parse(req.headers['if-modified-since'] || '');
      if ((inm && inm.split(/\s*,\s*/).includes(etag)) || (!inm && ims >= Math.floor(st.mtimeMs / 1000) * 1000)) { done(304, headers); return; }
      if (req.method === 'HEAD') { done(200, { ...headers, 'content-length': st.size }); return; }
      res.writeHead(200, { ...CORS_HEADERS, ...headers, 'content-length': st.size });
      fs.createReadStream(file).pipe(res).on('finish', () => onRequest?.({ method: req.method, path: req.url, status: 200 }));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}${prefix}` }));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 5173);
  serve({ port, base: process.env.BASE || '/' }).then(({ url }) => {
    if (!fs.existsSync(path.join(HERE, '..', 'web', 'dist', 'index.html'))) console.warn('web/dist is missing: run `npm run build` first.');
    console.log(`hookgrad playground: ${url}`);
  }, (e) => { console.error(`could not start the server: ${e.message}`); process.exit(1); });
}

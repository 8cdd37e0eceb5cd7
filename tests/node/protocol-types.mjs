// A runtime checker generated from crate/js/protocol.d.ts itself (no second
// copy of the schema to drift): parses the file's interfaces and type
// aliases (the small TypeScript subset it uses: unions, arrays, string
// literals, optional fields, primitives, null) and checks plain values
// against them strictly: required fields present, no undeclared field, every
// value of its declared type. `typescript` is not a dependency of the
// project; this covers exactly what protocol.d.ts is allowed to use, and it
// throws on anything else, so the file cannot grow past what is checked.
import fs from 'node:fs';

function splitTop(s, sep) {
  const out = []; let depth = 0; let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '(' || ch === '{' || ch === '[') depth++;
    if (ch === ')' || ch === '}' || ch === ']') depth--;
    if (depth === 0 && s.startsWith(sep, i)) { out.push(cur); cur = ''; i += sep.length - 1; continue; }
    cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x !== '');
}

function parseType(src) {
  const s = src.trim();
  const parts = splitTop(s, '|');
  if (parts.length > 1) return { union: parts.map(parseType) };
  if (s.endsWith('[]')) return { array: parseType(s.slice(0, -2)) };
  if (s.startsWith('(') && s.endsWith(')')) return parseType(s.slice(1, -1));
  if (/^'[^']*'$/.test(s)) return { literal: s.slice(1, -1) };
  if (['number', 'string', 'boolean', 'null'].includes(s)) return { prim: s };
  if (/^[A-Z]\w*$/.test(s)) return { ref: s };
  throw new Error(`protocol.d.ts: unsupported type syntax: ${s}`);
}

/** Parses protocol.d.ts → { interfaces: {Name: {field: {type, optional}}}, aliases: {Name: type} }. */
export function parseProtocol(file) {
  const src = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const interfaces = {}; const aliases = {};
  for (const m of src.matchAll(/export interface (\w+) \{([^}]*)\}/g)) {
    const fields = {};
    for (const line of m[2].split(';').map((l) => l.trim()).filter(Boolean)) {
      const f = /^(\w+)(\?)?:\s*([\s\S]+)$/.exec(line);
      if (!f) throw new Error(`protocol.d.ts: cannot read field "${line}" of ${m[1]}`);
      fields[f[1]] = { type: parseType(f[3]), optional: !!f[2] };
    }
    interfaces[m[1]] = fields;
  }
  for (const m of src.matchAll(/export type (\w+) =([^;]+);/g)) aliases[m[1]] = parseType(m[2]);
  return { interfaces, aliases };
}

/** Checks `value` against type `name`; returns a list of problems ([] if it conforms). */
export function check(schema, name, value, path = name, seen = null) {
  const errs = [];
  const go = (t, v, p) => {
    if (t.union) {
      const results = t.union.map((u) => { const e = []; goInto(u, v, p, e); return e; });
      if (!results.some((e) => e.length === 0)) errs.push(`${p}: ${JSON.stringify(v)?.slice(0, 80)} matches none of ${t.union.length} alternatives (${results.map((e) => e[0]).join(' / ')})`);
      return;
    }
    goInto(t, v, p, errs);
  };
  const goInto = (t, v, p, out) => {
    const push = (m) => out.push(m);
    if (t.union) { const sub = []; const save = errs.length; go(t, v, p); sub.push(...errs.splice(save)); out.push(...sub); return; }
    if (t.prim === 'null') { if (v !== null) push(`${p}: expected null`); return; }
    if (t.prim === 'number') { if (typeof v !== 'number') push(`${p}: expected number, got ${typeof v}`); return; }
    if (t.prim === 'string') { if (typeof v !== 'string') push(`${p}: expected string, got ${typeof v}`); return; }
    if (t.prim === 'boolean') { if (typeof v !== 'boolean') push(`${p}: expected boolean`); return; }
    if (t.literal != null) { if (v !== t.literal) push(`${p}: expected '${t.literal}', got ${JSON.stringify(v)}`); return; }
    if (t.array) {
      if (!Array.isArray(v)) { push(`${p}: expected array`); return; }
      v.forEach((x, i) => { const save = errs.length; go(t.array, x, `${p}[${i}]`); out.push(...errs.splice(save)); });
      return;
    }
    if (t.ref) {
      if (schema.aliases[t.ref]) { const save = errs.length; go(schema.aliases[t.ref], v, p); out.push(...errs.splice(save)); return; }
      const fields = schema.interfaces[t.ref];
      if (!fields) throw new Error(`protocol.d.ts: unknown type ${t.ref}`);
      if (!v || typeof v !== 'object' || Array.isArray(v)) { push(`${p}: expected ${t.ref} object`); return; }
      seen?.(t.ref, v);
      for (const [k, f] of Object.entries(fields)) {
        if (!(k in v)) { if (!f.optional) push(`${p}.${k}: missing (${t.ref})`); continue; }
        const save = errs.length; go(f.type, v[k], `${p}.${k}`); out.push(...errs.splice(save));
      }
      for (const k of Object.keys(v)) if (!(k in fields)) push(`${p}.${k}: not declared in ${t.ref}`);
    }
  };
  go({ ref: name }, value, path);
  return errs;
}

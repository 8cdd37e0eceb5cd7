// Runs one random program (JSON on stdin) on a fresh hookgrad instance and
// prints the differences as JSON: used to minimize a program that trapped
// the wasm instance (after a trap, the instance in the test process is dead,
// so each candidate needs a fresh one).
import fs from 'node:fs';
import { hg } from './harness.mjs';
import { check } from './programs.mjs';

const prog = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(check(hg, prog)));

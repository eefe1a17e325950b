#!/usr/bin/env node
// Compares two eval.json files number for number (time fields aside): run_all's reproducibility check (the same
// command twice gives the same evaluation). Prints the differing paths, or how many numbers agreed; exits 1 on any
// difference.
//   node tools/compare-eval.cjs A/eval.json B/eval.json
const fs = require('fs');

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node tools/compare-eval.cjs A/eval.json B/eval.json');
  process.exit(2);
}
/** Keys that measure time, not results. */
const isTime = (key) => /(^|_)(time|seconds|elapsed|duration)(_|$)|_s$|_ms$/.test(key);
const diffs = [];
let numbers = 0;
function walk(x, y, where) {
  if (typeof x === 'number' && typeof y === 'number') {
    numbers++;
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) diffs.push(`${where}: ${x} vs ${y}`);
    return;
  }
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') {
    if (x !== y) diffs.push(`${where}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
    return;
  }
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (isTime(key)) continue;
    if (!(key in x) || !(key in y)) diffs.push(`${where}.${key}: only in ${key in x ? a : b}`);
    else walk(x[key], y[key], `${where}.${key}`);
  }
}
walk(JSON.parse(fs.readFileSync(a, 'utf8')), JSON.parse(fs.readFileSync(b, 'utf8')), '$');
for (const d of diffs.slice(0, 20)) console.log(`compare-eval: ${d}`);
if (diffs.length > 20) console.log(`compare-eval: ... and ${diffs.length - 20} more`);
console.log(diffs.length === 0 ? `compare-eval: ${a} and ${b} agree on all ${numbers} numbers` : `compare-eval: ${diffs.length} differences in ${numbers} numbers`);
process.exit(diffs.length === 0 ? 0 : 1);

#!/usr/bin/env node
// Prints the most optimizer steps any of the named RL runs took (at least 1): run_all.sh's budget for the sft_more
// control. A policy-gradient run counts its metrics.jsonl's `ppo/updates` (steps per iteration); expert iteration
// its rft.jsonl's `optimizer_steps` (per round).
//   node tools/rl-steps.cjs RESULTS ALGO...
const fs = require('fs');
const path = require('path');

const [results, ...algos] = process.argv.slice(2);
if (!results || algos.length === 0) {
  console.error('usage: node tools/rl-steps.cjs RESULTS ALGO...');
  process.exit(2);
}
const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
let most = 1;
for (const algo of algos) {
  const dir = path.join(results, algo);
  const rft = path.join(dir, 'rft.jsonl');
  const metrics = path.join(dir, 'metrics.jsonl');
  let steps;
  if (fs.existsSync(rft)) steps = lines(rft).reduce((s, r) => s + (r.optimizer_steps ?? 0), 0);
  else if (fs.existsSync(metrics)) steps = lines(metrics).reduce((s, r) => s + (r['ppo/updates'] ?? 0), 0);
  else {
    console.error(`rl-steps: ${dir}: neither rft.jsonl nor metrics.jsonl: did the ${algo} stage run?`);
    process.exit(1);
  }
  most = Math.max(most, steps);
}
console.log(most);

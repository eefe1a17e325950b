import { readSftData, splitHeldOut } from '@rlhf-code/data';
async function main() {
  console.time('read'); const recs = await readSftData('/tmp/s50.jsonl'); console.timeEnd('read');
  console.time('split'); const s = splitHeldOut(recs, { fraction: 0.05, seed: 0 }); console.timeEnd('split'); console.log(s.train.length);
}
main();

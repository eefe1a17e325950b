// Reading the service's own append-only JSON-lines logs that are statistics or learnt state (requests.jsonl,
// gate.jsonl): a line that does not parse (a torn last line after a crash) is skipped. The feedback log, which holds
// what users sent, has its own strict reader (libs/online-feedback feedback-log.ts).
import * as fs from 'fs';

/** Every parsed line of `file` (none when it does not exist). */
export function readJsonLines(file: string): unknown[] {
  if (!fs.existsSync(file)) return [];
  const out: unknown[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a torn last line after a crash
    }
  }
  return out;
}

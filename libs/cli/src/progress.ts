// The one progress bar of the project: on stderr, and still printed (one line every 15 s) when stderr is a log file.
import { SingleBar } from 'cli-progress';

/** `format` is cli-progress's template, e.g. `sft [{bar}] {value}/{total} steps | eta {eta_formatted}`. */
export function progressBar(format: string, opts: { etaBuffer?: number } = {}): SingleBar {
  return new SingleBar({
    format,
    barsize: 24,
    hideCursor: false,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 15000,
    ...(opts.etaBuffer ? { etaBuffer: opts.etaBuffer } : {}),
  });
}

/**
 * A bar per stage: `update(stage, done, total)` starts a new bar when the stage changes (e.g. sampling, then
 * scoring), `stop()` ends the last one. `unit(stage)` names what is counted.
 */
export function stagedProgress(unit: (stage: string) => string, width = 11): { update: (stage: string, done: number, total: number) => void; stop: () => void } {
  let bar: SingleBar | null = null;
  let key: string | null = null;
  return {
    update: (stage, done, total) => {
      if (stage !== key) {
        bar?.stop();
        key = stage;
        bar = progressBar(`${stage.padEnd(width)} [{bar}] {value}/{total} ${unit(stage)} | eta {eta_formatted}`);
        bar.start(total, done);
      } else bar!.update(done);
    },
    stop: () => bar?.stop(),
  };
}

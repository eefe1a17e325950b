// What every training app needs around its steps: a metrics file, a progress bar, a clean stop on
// Ctrl-C / SIGTERM or when a time budget is spent, and the optimizer + position state that makes a checkpoint resumable.
//   <outDir>/metrics.jsonl   one JSON object per logged step: {"step": 12, "time_s": 40.1, "loss": ..., ...}
import * as fs from 'fs';
import * as path from 'path';
import type { SingleBar } from 'cli-progress';
import { progressBar } from '@rlhf-code/cli';

export type Metrics = Record<string, number | string | boolean | null>;

/**
 * Give the event loop a turn. A training step is one long synchronous computation: a loop of them with only
 * promise continuations in between starves timers, signal handlers (Ctrl-C) and sockets until the next file I/O.
 */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface RunOptions {
  /** Where metrics.jsonl goes (created if missing). */
  outDir: string;
  /** Name shown in front of the progress bar, e.g. "sft". */
  label: string;
  /** Total optimizer steps, for the bar and its ETA. */
  totalSteps: number;
  /** Keep an existing metrics.jsonl (resume) instead of starting a new one. */
  append?: boolean;
  /** With append: the step the checkpoint resumed from. Lines logged after it are dropped (see dropLinesAfter). */
  resumeStep?: number;
  /** No progress bar (tests, or --quiet); metrics are still written. */
  quiet?: boolean;
  /** A time budget in minutes from the run's start (0 or none: no limit); the loop stops cleanly once it is spent. */
  maxMinutes?: number;
}

export class TrainingRun {
  readonly metricsFile: string;
  /** Set by the first Ctrl-C / SIGTERM: the loop should save and return. A second signal exits at once. */
  stopRequested = false;
  private readonly bar: SingleBar | null;
  private readonly started = Date.now();
  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (this.stopRequested) process.exit(130);
    this.stopRequested = true;
    this.print(`${signal}: stopping after this step and saving a checkpoint (again to quit at once)`);
  };

  constructor(readonly opts: RunOptions) {
    fs.mkdirSync(opts.outDir, { recursive: true });
    this.metricsFile = path.join(opts.outDir, 'metrics.jsonl');
    if (!opts.append) fs.writeFileSync(this.metricsFile, '');
    else if (opts.resumeStep !== undefined && fs.existsSync(this.metricsFile)) dropLinesAfter(this.metricsFile, opts.resumeStep);
    this.bar = opts.quiet
      ? null
      : progressBar(`${opts.label} [{bar}] {value}/{total} steps | {summary} | eta {eta_formatted}`, { etaBuffer: 20 });
    this.bar?.start(opts.totalSteps, opts.resumeStep ?? 0, { summary: '' });
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Seconds since the run started. */
  get elapsed(): number {
    return (Date.now() - this.started) / 1000;
  }

  /** The time budget (maxMinutes) is spent: the loop should save and return, as a finished chunk. */
  get outOfTime(): boolean {
    const m = this.opts.maxMinutes ?? 0;
    return m > 0 && this.elapsed >= m * 60;
  }

  /** Append one metrics line and move the bar to `step`; `summary` keys are shown on the bar. */
  log(step: number, metrics: Metrics, summary: string[] = ['loss']): void {
    const line = { step, time_s: Number(this.elapsed.toFixed(2)), ...metrics };
    fs.appendFileSync(this.metricsFile, JSON.stringify(line) + '\n');
    const shown = summary
      .filter((k) => typeof metrics[k] === 'number')
      .map((k) => `${k} ${formatNumber(metrics[k] as number)}`)
      .join(' ');
    this.bar?.update(Math.min(step, this.opts.totalSteps), { summary: shown });
  }

  /** A message that does not garble the bar (stderr). */
  print(text: string): void {
    if (this.bar && process.stderr.isTTY) {
      process.stderr.write('\r\x1b[K' + text + '\n');
      this.bar.render();
    } else {
      process.stderr.write(text + '\n');
    }
  }

  close(): void {
    this.bar?.stop();
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/**
 * A run that died after its last checkpoint had already logged the steps it is about to do again: drop those
 * lines (and a line the crash cut short) so that every step appears once in metrics.jsonl.
 */
/** Rewrite a JSONL log keeping the lines whose `step` is at most `step` (a resume drops what came after its checkpoint). */
export function dropLinesAfter(file: string, step: number): void {
  const kept = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => {
      try {
        const s = (JSON.parse(line) as { step?: unknown }).step;
        return typeof s === 'number' && s <= step;
      } catch {
        return false;
      }
    });
  fs.writeFileSync(file, kept.map((line) => line + '\n').join(''));
}

function formatNumber(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 1000 || a < 1e-3 ? x.toExponential(2) : x.toFixed(4);
}

/** Where a run is: optimizer steps taken, and the epoch / step within the epoch to continue from. */
export interface RunPosition {
  step: number;
  epoch: number;
  stepInEpoch: number;
}


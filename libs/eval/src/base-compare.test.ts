import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { compareBaseEvals, formatBaseCompare, readBaseEval } from './base-compare';
import type { BaseEvalReport } from './base-eval';

/** A report with the given per-item values (the figures their means, as eval base computes them). */
function report(o: { windows: number[]; windowsFim: number[]; exact: number[]; syntax: number[]; accepted: number[]; fnOk?: number[]; fnLines?: number[]; fnRep?: number[]; perExample?: boolean }): BaseEvalReport {
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const perExample = o.perExample ?? true;
  return {
    model: 'm',
    heldout: {
      seq_len: 512,
      n_windows: o.windows.length,
      n_tokens: 512 * o.windows.length,
      loss: mean(o.windows),
      loss_se: null,
      ppl: Math.exp(mean(o.windows)),
      n_windows_fim: o.windowsFim.length,
      n_tokens_fim: 512 * o.windowsFim.length,
      loss_fim: mean(o.windowsFim),
      loss_fim_se: null,
      window_losses: o.windows,
      window_losses_fim: o.windowsFim,
      ppl_fim: Math.exp(mean(o.windowsFim)),
    },
    fim: {
      n: o.exact.length,
      first_line_exact: mean(o.exact),
      syntax_valid: mean(o.syntax),
      accepted_per_request: mean(o.accepted),
      max_new_tokens: 64,
      min_new_tokens: 1,
      ...(perExample ? { per_example: { first_line_exact: o.exact, syntax_valid: o.syntax, accepted: o.accepted } } : {}),
    },
    functions: o.fnOk
      ? {
          n: o.fnOk.length,
          syntax_valid: mean(o.fnOk),
          mean_body_lines: mean(o.fnLines!),
          ...(o.fnRep ? { repetitive_rate: mean(o.fnRep) } : {}),
          ...(perExample ? { per_example: { syntax_valid: o.fnOk, body_lines: o.fnLines!, ...(o.fnRep ? { repetitive: o.fnRep } : {}) } } : {}),
        }
      : null,
  } as unknown as BaseEvalReport;
}

const a = report({ windows: [4, 5, 6], windowsFim: [5, 6], exact: [0, 0, 1, 0], syntax: [1, 0, 1, 1], accepted: [0, 0, 1, 0], fnOk: [1, 0], fnLines: [2, 4] });
const b = report({ windows: [3.5, 4.4, 5.6], windowsFim: [4, 5.5], exact: [1, 0, 1, 1], syntax: [1, 1, 1, 1], accepted: [1, 0, 1, 0], fnOk: [1, 1], fnLines: [6, 9] });

describe('compareBaseEvals', () => {
  it('pairs each figure over the same items: differences, SEs and t intervals computed by hand', () => {
    const rows = compareBaseEvals(a, b);
    expect(rows.map((r) => r.figure)).toEqual([
      'heldout.loss',
      'heldout.loss_fim',
      'fim.first_line_exact',
      'fim.syntax_valid',
      'fim.accepted_per_request',
      'functions.syntax_valid',
      'functions.mean_body_lines',
    ]);
    const loss = rows[0];
    // window differences -0.5, -0.6, -0.4: mean -0.5, sd 0.1, SE 0.1 / sqrt 3; t(0.975, 2) = 4.3027
    expect(loss.n).toBe(3);
    expect(loss.diff).toBeCloseTo(-0.5, 12);
    expect(loss.se).toBeCloseTo(0.1 / Math.sqrt(3), 12);
    expect(loss.ci95![0]).toBeCloseTo(-0.5 - 4.302653 * (0.1 / Math.sqrt(3)), 5);
    expect(loss.ci95![1]).toBeCloseTo(-0.5 + 4.302653 * (0.1 / Math.sqrt(3)), 5);
    // FIM exact: 1/4 -> 3/4, differences 1,0,0,1: mean 0.5, sd sqrt(1/3), SE sqrt(1/3)/2
    const exact = rows[2];
    expect([exact.baseline, exact.candidate, exact.diff]).toEqual([0.25, 0.75, 0.5]);
    expect(exact.se).toBeCloseTo(Math.sqrt(1 / 3) / 2, 12);
    // body lines 3 -> 7.5, differences 4 and 5: SE 0.5, t(0.975, 1) = 12.706
    const lines = rows[6];
    expect(lines.diff).toBeCloseTo(4.5, 12);
    expect(lines.se).toBeCloseTo(0.5, 12);
    expect(lines.ci95![1]).toBeCloseTo(4.5 + 12.7062 * 0.5, 3);
  });

  it('pairs repetitive_rate when both runs have it (eval base files before it have no such row)', () => {
    const withRep = (r: BaseEvalReport, fnRep: number[]) => report({ windows: r.heldout.window_losses, windowsFim: r.heldout.window_losses_fim, exact: r.fim.per_example!.first_line_exact, syntax: r.fim.per_example!.syntax_valid, accepted: r.fim.per_example!.accepted, fnOk: r.functions!.per_example!.syntax_valid, fnLines: r.functions!.per_example!.body_lines, fnRep });
    const rows = compareBaseEvals(withRep(a, [1, 1]), withRep(b, [0, 1]));
    const rep = rows.find((r) => r.figure === 'functions.repetitive_rate')!;
    // differences -1 and 0: mean -0.5, SE 0.5
    expect([rep.baseline, rep.candidate, rep.diff, rep.se]).toEqual([1, 0.5, -0.5, 0.5]);
    expect(compareBaseEvals(a, withRep(b, [0, 1])).some((r) => r.figure === 'functions.repetitive_rate')).toBe(false);
  });

  it('centres the loss interval on the difference of the reported (token-weighted) losses', () => {
    const shifted = { ...b, heldout: { ...b.heldout, loss: b.heldout.loss + 0.01 } };
    const r = compareBaseEvals(a, shifted)[0];
    expect(r.diff).toBeCloseTo(-0.49, 12);
    expect((r.ci95![0] + r.ci95![1]) / 2).toBeCloseTo(-0.49, 12);
  });

  it('shows unpaired rows for a run without per-item values, and refuses runs of other settings', () => {
    const old = report({ windows: [4, 5, 6], windowsFim: [5, 6], exact: [0, 0, 1, 0], syntax: [1, 0, 1, 1], accepted: [0, 0, 1, 0], fnOk: [1, 0], fnLines: [2, 4], perExample: false });
    const rows = compareBaseEvals(old, b);
    expect(rows[0].se).not.toBeNull(); // window losses are in every report
    expect(rows[2]).toMatchObject({ figure: 'fim.first_line_exact', diff: 0.5, se: null, ci95: null });
    expect(formatBaseCompare(rows, { baseline: 'v1', candidate: 'v2' })).toContain('| fim.first_line_exact | 4 | 0.250 | 0.750 | +0.500 (unpaired) |  |');

    const fewer = report({ windows: [4, 5], windowsFim: [5, 6], exact: [0, 0, 1, 0], syntax: [1, 0, 1, 1], accepted: [0, 0, 1, 0] });
    expect(() => compareBaseEvals(fewer, b)).toThrow('heldout.n_windows: the baseline measured 2 and the candidate 3');
    const otherLen = { ...b, fim: { ...b.fim, max_new_tokens: 32 } };
    expect(() => compareBaseEvals(a, otherLen)).toThrow('fim.max_new_tokens: 64 against 32: pass the same --max-new-tokens to both runs');
  });
});

describe('readBaseEval', () => {
  it('reads a folder or the file, and names the flag and file when it cannot', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'base-compare-'));
    try {
      writeFileSync(path.join(dir, 'base_eval.json'), JSON.stringify(a));
      expect(readBaseEval(dir, '--baseline').heldout.loss).toBe(5);
      expect(readBaseEval(path.join(dir, 'base_eval.json'), '--baseline').fim.n).toBe(4);
      expect(() => readBaseEval(path.join(dir, 'nope'), '--candidate')).toThrow(`--candidate: ${path.join(dir, 'nope')} does not exist`);
      writeFileSync(path.join(dir, 'bad.json'), '{"x": 1}');
      expect(() => readBaseEval(path.join(dir, 'bad.json'), '--candidate')).toThrow('is not an eval base report');
      writeFileSync(path.join(dir, 'broken.json'), '{');
      expect(() => readBaseEval(path.join(dir, 'broken.json'), '--baseline')).toThrow(`--baseline: ${path.join(dir, 'broken.json')} is not JSON`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

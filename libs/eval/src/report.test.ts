import { chartRows, chartSpec } from './chart';
import type { EvalReport } from './evaluate';
import { formatComparisons, formatDev, formatGreedy, formatGroups, formatMarkdown, formatPassAtK, formatTable } from './report';

const se = { syntax_valid: 0.05, pass_at_1: 0.01, exec_score: 0.02, tests_passed: 0.03, defines_called_function: 0.04, rm_score: 0.1, distinct_1: 0.01, distinct_2: null, mean_len: 2.5, kl_to_sft: 0.5 };
const report: EvalReport = {
  n_problems: 200,
  n_seeds: 1,
  samples_per_problem: 4,
  temperature: 0.7,
  models: {
    base: {
      syntax_valid: 0.625, pass_at_1: 0, exec_score: -0.05, tests_passed: 0.3, defines_called_function: 0.5, rm_score: -0.12345, distinct_1: 0.25, distinct_2: null,
      mean_len: 63.25, kl_to_sft: 12.345, se, pass_at_1_by_seed: [0], seed_sd: null, temperature: 0.7, sampling_temperature: 0.7,
      pass_at_k: { '1': { mean: 0, se: 0.01 }, '2': { mean: 0.1, se: 0.02 }, '4': { mean: 0.2, se: 0.03 } },
      vs_sft: {
        syntax_valid: { diff: -0.275, se: 0.03, ci95: [-0.334, -0.216] }, pass_at_1: { diff: -0.075, se: 0.02, ci95: [-0.114, -0.036] },
        exec_score: { diff: -0.1, se: 0.01, ci95: [-0.12, -0.08] }, tests_passed: null, defines_called_function: null, rm_score: null, distinct_1: null,
        distinct_2: null, mean_len: { diff: 22.25, se: 3, ci95: [16.33, 28.17] }, kl_to_sft: null, flips: { up: 3, down: 18, p: 0.00073 },
        pass_at_k: { '1': { diff: -0.075, se: 0.02, ci95: [-0.114, -0.036] }, '2': { diff: -0.05, se: 0.02, ci95: [-0.09, -0.01] }, '4': { diff: 0, se: null, ci95: null } },
      },
      greedy: { syntax_valid: 0.5, pass_at_1: 0, exec_score: 0.35, tests_passed: 0.2, defines_called_function: 0.4, rm_score: 0.1, distinct_1: 0.2, distinct_2: 0.3, mean_len: 50, greedy_log_ratio: -2.5 },
    },
    sft: {
      syntax_valid: 0.9, pass_at_1: 0.075, exec_score: 0.5, tests_passed: 0.6, defines_called_function: 0.9, rm_score: 0.5, distinct_1: 0.3, distinct_2: 0.55, mean_len: 41,
      kl_to_sft: null, se: { ...se, kl_to_sft: null }, pass_at_1_by_seed: [0.075], seed_sd: null, temperature: 0.7, sampling_temperature: 0.7,
      pass_at_k: { '1': { mean: 0.075, se: 0.01 }, '2': { mean: 0.15, se: 0.02 }, '4': { mean: 0.2, se: 0.03 } },
    },
  },
};

describe('eval.md', () => {
  it('one aligned row per model, mean ± SE, n/a for null; the problems up and down against SFT beside pass@1', () => {
    expect(formatTable(report)).toBe(
      [
        '| model | temperature |  syntax_valid |        pass@1 |   up / down (p) |     exec_score |  tests_passed |    defines_fn |       rm_score |    distinct-1 | distinct-2 |   mean_len |    kl_to_sft |',
        '| ----- | ----------: | ------------: | ------------: | --------------: | -------------: | ------------: | ------------: | -------------: | ------------: | ---------: | ---------: | -----------: |',
        '| base  |         0.7 | 0.625 ± 0.050 | 0.000 ± 0.010 | 3 / 18 (7.3e-4) | -0.050 ± 0.020 | 0.300 ± 0.030 | 0.500 ± 0.040 | -0.123 ± 0.100 | 0.250 ± 0.010 |        n/a | 63.3 ± 2.5 | 12.35 ± 0.50 |',
        '| sft   |         0.7 | 0.900 ± 0.050 | 0.075 ± 0.010 |             n/a |  0.500 ± 0.020 | 0.600 ± 0.030 | 0.900 ± 0.040 |  0.500 ± 0.100 | 0.300 ± 0.010 |      0.550 | 41.0 ± 2.5 |          n/a |',
      ].join('\n'),
    );
    expect(formatTable({ ...report, models: { sft: report.models.sft } })).not.toContain('up / down'); // nothing compared with SFT
  });

  it('paired differences against the SFT model, with their intervals; greedy figures beside', () => {
    const c = formatComparisons(report);
    expect(c).toContain('| base        | -0.275 ± 0.030 [-0.334, -0.216] |');
    expect(c).toContain('+22.3 ± 3.0 [16.3, 28.2]');
    expect(c).not.toContain('| sft ');
    expect(formatGreedy(report)).toContain('-2.50');
    const bare: EvalReport = { ...report, models: { sft: report.models.sft } };
    expect(formatComparisons(bare)).toBe('');
    expect(formatGreedy(bare)).toBe('');
  });

  it('has the settings, the tables, the chart link and every metric explained', () => {
    const md = formatMarkdown(report, {
      data: 'data/eval_mbpp_test.jsonl',
      decoding: '4 samples per problem at temperature 0.7, seed 0 + greedy',
      maxNewTokens: 128,
      rewardModel: 'results/rm',
      klReference: 'results/sft',
      chart: 'eval.svg',
    });
    expect(md).toContain('200 problems from `data/eval_mbpp_test.jsonl`, 4 responses per problem and model sampled at temperature 0.7');
    expect(md).toContain(formatTable(report));
    expect(md).toContain('## Against the SFT model');
    expect(md).toContain(formatComparisons(report));
    expect(md).toContain('## Greedy decoding');
    expect(md).toContain('![rates per model](eval.svg)');
    expect(md).toContain('## pass@k');
    expect(md).toContain(formatPassAtK(report));
    expect(md).not.toContain('## Temperature');
    expect(md).not.toContain('## Groups');
    expect(md).not.toContain('stub:');
    for (const h of ['syntax_valid', 'pass@1', 'exec_score', 'tests_passed', 'defines_fn', 'rm_score', 'distinct-1', 'distinct-2', 'mean_len', 'kl_to_sft', 'up / down (p)']) expect(md).toContain(`- **${h}**: `);
    expect(md).toContain("For 0/1 outcomes (greedy) it is McNemar's exact test; with fractional outcomes (sampled pass@1, or the mean over seeds) any difference");
    expect(md).not.toContain('## Seeds'); // one run
    expect(formatMarkdown(report, { data: 'd', decoding: 'g', maxNewTokens: 1, rewardModel: null, klReference: null, chart: null })).not.toContain('![');
  });
});

describe('eval.md: pass@k, temperatures chosen on dev data, stubs, groups', () => {
  const m = report.models;
  const stub = { ...m.sft, pass_at_1: 0, tests_passed: 0.25, temperature: null, sampling_temperature: null, pass_at_k: undefined, vs_sft: m.base.vs_sft };
  const dev: EvalReport = {
    ...report,
    temperature: null,
    models: {
      base: { ...m.base, temperature: 0, sampling_temperature: 0.4, greedy_log_ratio: -1.5, kl_to_sft: null, dev: { '0': { pass_at_1: 0.1, se: 0.05 }, '0.4': { pass_at_1: 0.1, se: 0.04 } } },
      sft: { ...m.sft, temperature: 0.4, sampling_temperature: 0.4, dev: { '0': { pass_at_1: 0.1, se: 0.05 }, '0.4': { pass_at_1: 0.2, se: 0.04 } } },
      'stub:pass': stub,
    },
    groups: {
      easy: {
        n_problems: 3,
        models: {
          base: { pass_at_1: 0.5, se: 0.25, tests_passed: 0.75, pass_at_1_by_seed: [0.5], seed_sd: null, vs_sft: { diff: -0.25, se: 0.1, ci95: [-0.68, 0.18], flips: { up: 0, down: 1, p: 1 } } },
          sft: { pass_at_1: 0.75, se: 0.2, tests_passed: 0.8, pass_at_1_by_seed: [0.75], seed_sd: null },
        },
      },
      hard: {
        n_problems: 1,
        models: {
          base: { pass_at_1: 0, se: null, tests_passed: 0, pass_at_1_by_seed: [0], seed_sd: null, vs_sft: { diff: 0, se: null, ci95: null, flips: { up: 0, down: 0, p: 1 } } },
          sft: { pass_at_1: 0, se: null, tests_passed: 0.5, pass_at_1_by_seed: [0], seed_sd: null },
        },
      },
    },
  };

  it('pass@k per model at its sampling temperature, then paired with SFT', () => {
    expect(formatPassAtK(report)).toBe(
      [
        '| model | sampled at |        pass@1 |        pass@2 |        pass@4 |',
        '| ----- | ---------: | ------------: | ------------: | ------------: |',
        '| base  |        0.7 | 0.000 ± 0.010 | 0.100 ± 0.020 | 0.200 ± 0.030 |',
        '| sft   |        0.7 | 0.075 ± 0.010 | 0.150 ± 0.020 | 0.200 ± 0.030 |',
        '',
        '| model - sft |                          pass@1 |                          pass@2 | pass@4 |',
        '| ----------- | ------------------------------: | ------------------------------: | -----: |',
        '| base        | -0.075 ± 0.020 [-0.114, -0.036] | -0.050 ± 0.020 [-0.090, -0.010] | +0.000 |',
      ].join('\n'),
    );
    expect(formatPassAtK({ ...report, models: { 'stub:pass': stub } })).toBe('');
  });

  it('the dev table marks each model\'s choice; the main table shows it, greedy as "greedy", stubs n/a, and a log_ratio for greedy headlines', () => {
    expect(formatDev(dev)).toBe(
      [
        '| model |          greedy |             0.4 |',
        '| ----- | --------------: | --------------: |',
        '| base  | 0.100 ± 0.050 * |   0.100 ± 0.040 |',
        '| sft   |   0.100 ± 0.050 | 0.200 ± 0.040 * |',
      ].join('\n'),
    );
    const t = formatTable(dev).split('\n');
    expect(t[0]).toMatch(/^\| model +\| temperature \|.*\| kl_to_sft \| log_ratio \|$/);
    expect(t[2]).toMatch(/^\| base +\| +greedy \|.*\| +n\/a \| +-1\.50 \|$/);
    expect(t[3]).toMatch(/^\| sft +\| +0\.4 \|/);
    expect(t[4]).toMatch(/^\| stub:pass \| +n\/a \| 0\.900 ± 0\.050 \| 0\.000 ± 0\.010 \|/);
    expect(formatDev(report)).toBe('');
  });

  it('one table per group: pass@1 ± SE, tests_passed, the paired difference with SFT and the flips', () => {
    expect(formatGroups(dev)).toBe(
      [
        '### easy (3 problems)',
        '',
        '| model |        pass@1 | tests_passed |                   pass@1 - sft | up / down (p) |',
        '| ----- | ------------: | -----------: | -----------------------------: | ------------: |',
        '| base  | 0.500 ± 0.250 |        0.750 | -0.250 ± 0.100 [-0.680, 0.180] | 0 / 1 (1.000) |',
        '| sft   | 0.750 ± 0.200 |        0.800 |                            n/a |           n/a |',
        '',
        '### hard (1 problem)',
        '',
        '| model | pass@1 | tests_passed | pass@1 - sft | up / down (p) |',
        '| ----- | -----: | -----------: | -----------: | ------------: |',
        '| base  |  0.000 |        0.000 |       +0.000 | 0 / 0 (1.000) |',
        '| sft   |  0.000 |        0.500 |          n/a |           n/a |',
      ].join('\n'),
    );
    expect(formatGroups(report)).toBe('');
  });

  it('eval.md has the dev, stub and group sections, and says the models ran at different temperatures', () => {
    const md = formatMarkdown(dev, {
      data: 'd.jsonl',
      decoding: 'g',
      maxNewTokens: 8,
      rewardModel: null,
      klReference: null,
      chart: null,
      dev: { data: 'dev.jsonl', problems: 90, samples: 4 },
    });
    expect(md).toContain('each model at its own temperature (the temperature column');
    expect(md).toContain('## Temperature');
    expect(md).toContain('90 dev problems from `dev.jsonl` (4 samples per temperature above 0, greedy once)');
    expect(md).toContain(formatDev(dev));
    expect(md).toContain('Rows `stub:*` are trivial programs');
    expect(md).toContain('## Groups');
    expect(md).toContain(formatGroups(dev));
  });
});

describe('chart spec', () => {
  it('rate metrics only, per model (stubs left out), nulls left out, ± SE', () => {
    const rows = chartRows(report);
    expect(rows[0]).toEqual({ metric: 'syntax valid', model: 'base', value: 0.625, lo: 0.625 - 0.05, hi: 0.625 + 0.05 });
    expect(rows[1]).toEqual({ metric: 'syntax valid', model: 'sft', value: 0.9, lo: 0.9 - 0.05, hi: 0.9 + 0.05 });
    expect(rows.filter((r) => r.metric === 'distinct-2').map((r) => r.model)).toEqual(['sft']);
    const withStub: EvalReport = { ...report, models: { ...report.models, 'stub:pass': report.models.sft } };
    expect(chartRows(withStub)).toEqual(rows);
    expect((chartSpec(withStub) as any).encoding.xOffset.sort).toEqual(['base', 'sft']);
  });

  it('grouped bars: x = metric, xOffset and colour = model in --models order, y in 0..1 or down to the lowest error bar, error bars', () => {
    const spec = chartSpec(report) as any;
    expect(spec.encoding.x).toMatchObject({ field: 'metric', sort: ['syntax valid', 'pass@1', 'exec score', 'tests passed', 'defines fn', 'distinct-1', 'distinct-2'] });
    expect(spec.encoding.xOffset).toMatchObject({ field: 'model', sort: ['base', 'sft'] });
    // base's exec_score is -0.05 ± 0.02: the axis goes down to its error bar
    expect(spec.encoding.y.scale.domain).toEqual([-0.07, 1]);
    expect(spec.layer[0]).toMatchObject({ mark: 'bar', encoding: { color: { field: 'model', sort: ['base', 'sft'] } } });
    expect(spec.layer[1]).toMatchObject({ mark: { type: 'rule' }, encoding: { y: { field: 'lo' }, y2: { field: 'hi' } } });
    expect(spec.data.values).toEqual(chartRows(report));
  });
});

import { chartRows, chartSpec } from './chart';
import type { EvalReport } from './evaluate';
import { formatComparisons, formatGreedy, formatMarkdown, formatTable } from './report';

const se = { syntax_valid: 0.05, pass_at_1: 0.01, exec_score: 0.02, defines_called_function: 0.04, rm_score: 0.1, distinct_1: 0.01, distinct_2: null, mean_len: 2.5, kl_to_sft: 0.5 };
const report: EvalReport = {
  n_problems: 200,
  samples_per_problem: 4,
  temperature: 0.7,
  models: {
    base: {
      syntax_valid: 0.625, pass_at_1: 0, exec_score: 0.4, defines_called_function: 0.5, rm_score: -0.12345, distinct_1: 0.25, distinct_2: null,
      mean_len: 63.25, kl_to_sft: 12.345, se,
      vs_sft: {
        syntax_valid: { diff: -0.275, se: 0.03, ci95: [-0.334, -0.216] }, pass_at_1: { diff: -0.075, se: 0.02, ci95: [-0.114, -0.036] },
        exec_score: { diff: -0.1, se: 0.01, ci95: [-0.12, -0.08] }, defines_called_function: null, rm_score: null, distinct_1: null,
        distinct_2: null, mean_len: { diff: 22.25, se: 3, ci95: [16.33, 28.17] }, kl_to_sft: null,
      },
      greedy: { syntax_valid: 0.5, pass_at_1: 0, exec_score: 0.35, defines_called_function: 0.4, rm_score: 0.1, distinct_1: 0.2, distinct_2: 0.3, mean_len: 50, greedy_log_ratio: -2.5 },
    },
    sft: {
      syntax_valid: 0.9, pass_at_1: 0.075, exec_score: 0.5, defines_called_function: 0.9, rm_score: 0.5, distinct_1: 0.3, distinct_2: 0.55, mean_len: 41,
      kl_to_sft: null, se: { ...se, kl_to_sft: null },
    },
  },
};

describe('eval.md', () => {
  it('one aligned row per model, mean ± SE, n/a for null', () => {
    expect(formatTable(report)).toBe(
      [
        '| model |  syntax_valid |        pass@1 |    exec_score |    defines_fn |       rm_score |    distinct-1 | distinct-2 |   mean_len |    kl_to_sft |',
        '|-------|--------------:|--------------:|--------------:|--------------:|---------------:|--------------:|-----------:|-----------:|-------------:|',
        '| base  | 0.625 ± 0.050 | 0.000 ± 0.010 | 0.400 ± 0.020 | 0.500 ± 0.040 | -0.123 ± 0.100 | 0.250 ± 0.010 |        n/a | 63.3 ± 2.5 | 12.35 ± 0.50 |',
        '| sft   | 0.900 ± 0.050 | 0.075 ± 0.010 | 0.500 ± 0.020 | 0.900 ± 0.040 |  0.500 ± 0.100 | 0.300 ± 0.010 |      0.550 | 41.0 ± 2.5 |          n/a |',
      ].join('\n'),
    );
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
    for (const h of ['syntax_valid', 'pass@1', 'exec_score', 'defines_fn', 'rm_score', 'distinct-1', 'distinct-2', 'mean_len', 'kl_to_sft']) expect(md).toContain(`- **${h}**: `);
    expect(formatMarkdown(report, { data: 'd', decoding: 'g', maxNewTokens: 1, rewardModel: null, klReference: null, chart: null })).not.toContain('![');
  });
});

describe('chart spec', () => {
  it('rate metrics only, per model, nulls left out, ± SE', () => {
    const rows = chartRows(report);
    expect(rows[0]).toEqual({ metric: 'syntax valid', model: 'base', value: 0.625, lo: 0.625 - 0.05, hi: 0.625 + 0.05 });
    expect(rows[1]).toEqual({ metric: 'syntax valid', model: 'sft', value: 0.9, lo: 0.9 - 0.05, hi: 0.9 + 0.05 });
    expect(rows.filter((r) => r.metric === 'distinct-2').map((r) => r.model)).toEqual(['sft']);
  });

  it('grouped bars: x = metric, xOffset and colour = model in --models order, y fixed to 0..1, error bars', () => {
    const spec = chartSpec(report) as any;
    expect(spec.encoding.x).toMatchObject({ field: 'metric', sort: ['syntax valid', 'pass@1', 'exec score', 'defines fn', 'distinct-1', 'distinct-2'] });
    expect(spec.encoding.xOffset).toMatchObject({ field: 'model', sort: ['base', 'sft'] });
    expect(spec.encoding.y.scale.domain).toEqual([0, 1]);
    expect(spec.layer[0]).toMatchObject({ mark: 'bar', encoding: { color: { field: 'model', sort: ['base', 'sft'] } } });
    expect(spec.layer[1]).toMatchObject({ mark: { type: 'rule' }, encoding: { y: { field: 'lo' }, y2: { field: 'hi' } } });
    expect(spec.data.values).toEqual(chartRows(report));
  });
});

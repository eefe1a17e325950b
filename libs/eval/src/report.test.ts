import { chartRows, chartSpec } from './chart';
import type { EvalReport } from './evaluate';
import { formatMarkdown, formatTable } from './report';

const report: EvalReport = {
  n_problems: 40,
  models: {
    base: { syntax_valid: 0.625, pass_at_1: 0, rm_score: -0.12345, distinct_1: 0.25, distinct_2: null, mean_len: 63.25, kl_to_sft: 12.345 },
    sft: { syntax_valid: 0.9, pass_at_1: 0.075, rm_score: 0.5, distinct_1: 0.3, distinct_2: 0.55, mean_len: 41, kl_to_sft: null },
  },
};

describe('formatTable', () => {
  it('one aligned row per model, fixed decimals, n/a for null', () => {
    expect(formatTable(report)).toBe(
      [
        '| model | syntax_valid | pass@1 | rm_score | distinct-1 | distinct-2 | mean_len | kl_to_sft |',
        '|-------|-------------:|-------:|---------:|-----------:|-----------:|---------:|----------:|',
        '| base  |        0.625 |  0.000 |   -0.123 |      0.250 |        n/a |     63.3 |     12.35 |',
        '| sft   |        0.900 |  0.075 |    0.500 |      0.300 |      0.550 |     41.0 |       n/a |',
      ].join('\n'),
    );
  });

  it('eval.md has the settings, the table, the chart link and every metric explained', () => {
    const md = formatMarkdown(report, {
      data: 'data/eval_mbpp_test.jsonl',
      decoding: 'greedy',
      maxNewTokens: 128,
      rewardModel: 'results/rm',
      klReference: 'results/sft',
      chart: 'eval.svg',
    });
    expect(md).toContain('40 problems from `data/eval_mbpp_test.jsonl`');
    expect(md).toContain('greedy, at most 128 new tokens');
    expect(md).toContain(formatTable(report));
    expect(md).toContain('![rates per model](eval.svg)');
    for (const h of ['syntax_valid', 'pass@1', 'rm_score', 'distinct-1', 'distinct-2', 'mean_len', 'kl_to_sft']) expect(md).toContain(`- **${h}**: `);
    expect(formatMarkdown(report, { data: 'd', decoding: 'g', maxNewTokens: 1, rewardModel: null, klReference: null, chart: null })).not.toContain('![');
  });
});

describe('chart spec', () => {
  it('rate metrics only, per model, nulls left out', () => {
    expect(chartRows(report)).toEqual([
      { metric: 'syntax valid', model: 'base', value: 0.625 },
      { metric: 'syntax valid', model: 'sft', value: 0.9 },
      { metric: 'pass@1', model: 'base', value: 0 },
      { metric: 'pass@1', model: 'sft', value: 0.075 },
      { metric: 'distinct-1', model: 'base', value: 0.25 },
      { metric: 'distinct-1', model: 'sft', value: 0.3 },
      { metric: 'distinct-2', model: 'sft', value: 0.55 },
    ]);
  });

  it('grouped bars: x = metric, xOffset and colour = model in --models order, y fixed to 0..1', () => {
    const spec = chartSpec(report) as any;
    expect(spec.encoding.x).toMatchObject({ field: 'metric', sort: ['syntax valid', 'pass@1', 'distinct-1', 'distinct-2'] });
    expect(spec.encoding.xOffset).toMatchObject({ field: 'model', sort: ['base', 'sft'] });
    expect(spec.encoding.y.scale.domain).toEqual([0, 1]);
    expect(spec.layer[0]).toMatchObject({ mark: 'bar', encoding: { color: { field: 'model', sort: ['base', 'sft'] } } });
    expect(spec.data.values).toEqual(chartRows(report));
  });
});

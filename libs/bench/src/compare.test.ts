// bench compare without running benchmarks: the pairing/ratio/median summary and the child-output parsing.
import { againstLimits, againstPeak, lastJsonLine, median, summarize } from './compare';

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
});

describe('lastJsonLine', () => {
  it('parses the last line that starts with "{", ignoring other output', () => {
    expect(lastJsonLine('warming up\n{"a":1}\nnoise\n{"b":2}\n\n')).toEqual({ b: 2 });
    expect(lastJsonLine('no json here\n')).toBeNull();
    expect(lastJsonLine('{not json\n')).toBeNull();
  });
});

describe('summarize', () => {
  const ours = (backend: string, x: Record<string, number>) => ({ backend, mode: 'x', ...x });
  const torch = (x: Record<string, number>) => ({ engine: 'torch 1.13.0a0', ...x });

  it('train: ratios are per pair (our run i / torch run i), each figure {median, min, max, values}', () => {
    const s = summarize(
      'train',
      [100, 300, 200].map((v) => ours('wasm', { tokens_per_s: v })),
      [50, 100, 400].map((v) => torch({ tokens_per_s: v })),
    );
    expect(s).toEqual({
      mode: 'train',
      backend: 'wasm',
      torch: 'torch 1.13.0a0',
      runs: 3,
      ours_tokens_per_s: { median: 200, min: 100, max: 300, values: [100, 300, 200] },
      torch_tokens_per_s: { median: 100, min: 50, max: 400, values: [50, 100, 400] },
      // pairs: 100/50, 300/100, 200/400 -- not median(ours) / median(torch) = 2
      ratio: { median: 2, min: 0.5, max: 3, values: [2, 3, 0.5] },
    });
    expect(Object.keys(s)).toEqual(['mode', 'backend', 'torch', 'runs', 'ours_tokens_per_s', 'torch_tokens_per_s', 'ratio']);
  });

  it('generate: decode tokens/s and TTFT, each with its own per-pair ratio', () => {
    const s = summarize(
      'generate',
      [ours('wasm', { decode_tokens_per_s: 40, ttft_ms: 30 }), ours('wasm', { decode_tokens_per_s: 60, ttft_ms: 50 })],
      [torch({ decode_tokens_per_s: 80, ttft_ms: 60 }), torch({ decode_tokens_per_s: 60, ttft_ms: 25 })],
    );
    expect(s).toEqual({
      mode: 'generate',
      backend: 'wasm',
      torch: 'torch 1.13.0a0',
      runs: 2,
      ours_decode_tokens_per_s: { median: 50, min: 40, max: 60, values: [40, 60] },
      torch_decode_tokens_per_s: { median: 70, min: 60, max: 80, values: [80, 60] },
      decode_ratio: { median: 0.75, min: 0.5, max: 1, values: [0.5, 1] },
      ours_ttft_ms: { median: 40, min: 30, max: 50, values: [30, 50] },
      torch_ttft_ms: { median: 42.5, min: 25, max: 60, values: [60, 25] },
      ttft_ratio: { median: 1.25, min: 0.5, max: 2, values: [0.5, 2] },
    });
  });

  it('names every distinct backend, and refuses unpaired runs or a missing figure', () => {
    const s = summarize('train', [ours('a', { tokens_per_s: 1 }), ours('b', { tokens_per_s: 1 })], [torch({ tokens_per_s: 1 }), torch({ tokens_per_s: 1 })]);
    expect(s.backend).toBe('a | b');
    expect(() => summarize('train', [ours('a', { tokens_per_s: 1 })], [])).toThrow(/1 runs of ours vs 0 of torch/);
    expect(() => summarize('generate', [ours('a', { decode_tokens_per_s: 1 })], [torch({ decode_tokens_per_s: 1, ttft_ms: 1 })])).toThrow(
      /ours generate run 1: no positive number "ttft_ms"/,
    );
  });
});

describe('againstPeak', () => {
  it('train: the precision, its peak and the achieved GFLOP/s of every run, the median as a percentage of the peak', () => {
    const run = (achieved: number) => ({ backend: 'wasm', precision: 'bf16', peak_kernel: 'avx512bf16', peak_gflops: 800, achieved_gflops: achieved, tokens_per_s: achieved });
    const s = summarize('train', [run(300), run(400), run(350)], [{ engine: 't', tokens_per_s: 50 }, { engine: 't', tokens_per_s: 50 }, { engine: 't', tokens_per_s: 50 }]);
    expect(s).toMatchObject({
      precision: 'bf16',
      peak_kernel: 'avx512bf16',
      peak_gflops: 800,
      achieved_gflops: { median: 350, min: 300, max: 400, values: [300, 400, 350] },
      percent_of_peak: 43.8,
    });
  });

  it('no achieved_gflops in a run: no peak keys; no measured peak: a null percentage', () => {
    expect(againstPeak([{ tokens_per_s: 1 }])).toEqual({});
    expect(againstPeak([{ achieved_gflops: 10 }, { tokens_per_s: 1 }])).toEqual({});
    expect(againstPeak([{ precision: 'fp32', achieved_gflops: 10, peak_gflops: null, peak_kernel: null }])).toMatchObject({ peak_gflops: null, percent_of_peak: null });
  });
});

describe('againstLimits', () => {
  const limits = { read_gb_per_s: 40, gemm_gflop_per_s: 200 };
  it('decoding reads every weight once a token: params x bytes per weight x tokens/s against the read bandwidth', () => {
    // 494M int8 weights at 60 tokens/s: 29.6 GB/s, 74% of 40
    const r = againstLimits('generate', { params: 494e6, base_dtype: 'int8' }, 60, limits);
    expect(r.ours_read_gb_per_s).toBeCloseTo(29.64, 6);
    expect(r.share_of_read_bandwidth).toBeCloseTo(0.741, 6);
    expect(againstLimits('generate', { params: 494e6, base_dtype: 'fp32' }, 15, limits).ours_read_gb_per_s).toBeCloseTo(29.64, 6);
  });
  it('training: 6 x params FLOPs a token with every weight trained, 4 x params with LoRA, against the GEMM peak', () => {
    expect(againstLimits('train', { params: 1e8, lora_rank: 0 }, 100, limits)).toEqual({ ours_gflop_per_s: 60, share_of_gemm_peak: 0.3 });
    expect(againstLimits('train', { params: 1e8, lora_rank: 8 }, 100, limits)).toEqual({ ours_gflop_per_s: 40, share_of_gemm_peak: 0.2 });
  });
  it('summarize puts the limits and our median against them in the line; a record without params is an error', () => {
    const s = summarize('train', [{ backend: 'wasm', params: 1e8, lora_rank: 0, tokens_per_s: 100 }], [{ engine: 't', tokens_per_s: 50 }], limits);
    expect(s).toMatchObject({ machine: limits, ours_gflop_per_s: 60, share_of_gemm_peak: 0.3 });
    expect(() => summarize('train', [{ backend: 'wasm', tokens_per_s: 100 }], [{ engine: 't', tokens_per_s: 50 }], limits)).toThrow();
  });
});

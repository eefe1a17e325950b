#!/usr/bin/env python3
"""Issue 50, item 3: fit L(N, D) = E + A / N^alpha + B / D^beta (Hoffmann et al. 2022, approach 3) to the held-out
losses of tools/pretrain-sweep.sh's runs and extrapolate each shape to the hours available.

N: non-embedding parameters (the tied embedding is a lookup plus the LM head, counted in FLOPs, not in N here, as in
Kaplan et al.); D: tokens seen. Points: every held-out evaluation of the warmup-stable-decay runs during the stable
phase (after warmup, before the decay), so the loss is a function of (N, D) alone; each run's last point (after its
decay) gives the decay's gain over the stable curve, added to the extrapolation. alpha and beta by grid search, E, A, B
by least squares at each (alpha, beta). With three shapes the N term is fitted from three values: read the exponents as
rough, the ranking at the hours available as the result.
  python3 tools/pretrain-sweep-fit.py results/sweep [HOURS ...]   (default hours: 10 12 15)
"""
import json
import os
import sys

import numpy as np


def non_embedding_params(c):
    h, L, ffn = c['hidden_size'], c['num_hidden_layers'], c['intermediate_size']
    hd = h // c['num_attention_heads']
    kv = c['num_key_value_heads'] * hd
    attn = h * h + h + 2 * (h * kv + kv) + h * h  # q (bias), k, v (bias), o
    mlp = 3 * h * ffn
    return L * (attn + mlp + 2 * h) + h


def load(run):
    cfg = json.load(open(os.path.join(run, 'config.json')))
    rows = [json.loads(l) for l in open(os.path.join(run, 'metrics.jsonl'))]
    args = json.load(open(os.path.join(run, 'training_args.json')))
    steps, decay, warm = args['maxSteps'], args.get('decaySteps') or 0, args['warmupSteps']
    per_step = args['seqLen'] * args['batchSize'] * args.get('gradAccum', 1)
    evals = [(r['step'], r['eval/loss']) for r in rows if 'eval/loss' in r]
    train = [r for r in rows if 'tokens_per_s' in r]
    tps = train[-1]['tokens_per_s'] if train else None
    # the shape's speed on a quiet machine: the sweep's 20-step timing run (steps 11-20), else the run's own average
    timing = os.path.join(os.path.dirname(run), 'time-' + os.path.basename(run), 'metrics.jsonl')
    if os.path.isfile(timing):
        t = {r['step']: r['time_s'] for r in map(json.loads, open(timing)) if 'loss' in r}
        if 10 in t and 20 in t:
            tps = round(10 * per_step / (t[20] - t[10]))
    stable = [(s * per_step, l) for s, l in evals if warm < s <= steps - decay]
    last = evals[-1] if evals else None
    total = non_embedding_params(cfg) + cfg['vocab_size'] * cfg['hidden_size'] * (1 if cfg.get('tie_word_embeddings', True) else 2)
    return {'N': non_embedding_params(cfg), 'total': total, 'params': cfg, 'stable': stable, 'last': (last[0] * per_step, last[1]) if last else None, 'tokens_per_s': tps}


def fit(points):
    N = np.array([p[0] for p in points], float)
    D = np.array([p[1] for p in points], float)
    y = np.array([p[2] for p in points], float)
    best = None
    for a in np.linspace(0.05, 0.8, 76):
        for b in np.linspace(0.05, 0.8, 76):
            X = np.stack([np.ones_like(N), N ** -a, D ** -b], 1)
            coef, *_ = np.linalg.lstsq(X, y, rcond=None)
            if coef[0] < 0 or coef[1] < 0 or coef[2] < 0:  # E, A, B >= 0: a loss floor and terms that only fall
                continue
            r = float(np.sum((X @ coef - y) ** 2))
            if best is None or r < best[0]:
                best = (r, a, b, coef)
    if best is None:
        return None
    r, a, b, (E, A, B) = best
    return {'alpha': a, 'beta': b, 'E': E, 'A': A, 'B': B, 'rmse': (r / len(y)) ** 0.5}


def main():
    out = sys.argv[1]
    hours = [float(h) for h in sys.argv[2:]] or [10, 12, 15]
    runs = {n: load(os.path.join(out, n)) for n in sorted(os.listdir(out)) if os.path.isfile(os.path.join(out, n, 'metrics.jsonl')) and not n.startswith('time-')}
    pts = [(r['N'], d, l) for r in runs.values() for d, l in r['stable']]
    print(f"# Pretraining sweep ({out})\n")
    print('Each shape for the same wall-clock budget (its steps from a quiet 20-step timing run), warmup-stable-decay; held-out loss on the')
    print("cache's 64 held-out windows. tokens/s: the timing run's.\n")
    print('| shape | params (non-emb) | tokens/s | tokens seen | held-out loss at the end (after the decay) | last stable-phase loss |')
    print('| --- | ---: | ---: | ---: | ---: | ---: |')
    for n, r in runs.items():
        d_end, l_end = r['last']
        st = r['stable'][-1] if r['stable'] else (0, float('nan'))
        print(f"| {n} | {r['total'] / 1e6:.2f}M ({r['N'] / 1e6:.2f}M) | {r['tokens_per_s']} | {d_end / 1e6:.2f}M | {l_end:.3f} | {st[1]:.3f} at {st[0] / 1e6:.2f}M |")
    print('\nAt the hours available, the tokens each shape would see and its tokens per parameter (Chinchilla: about 20 at the')
    print('compute-optimal size):\n')
    print('| shape |' + ''.join(f' {h:g} h: tokens, per param |' for h in hours))
    print('| --- |' + ' ---: |' * len(hours))
    for n, r in runs.items():
        cells = []
        for h in hours:
            d = (r['tokens_per_s'] or 0) * 3600 * h
            cells.append(f" {d / 1e6:.0f}M, {d / r['total']:.0f} |")
        print(f"| {n} |" + ''.join(cells))
    f = fit(pts)
    if f is None:
        print(f"\nNo fit of L(N, D) = E + A / N^alpha + B / D^beta with E, A, B >= 0 to the {len(pts)} stable-phase points: at these")
        print('budgets the larger shapes are not below the smaller at equal tokens, so the N term cannot be estimated; read the')
        print('equal-time losses and the tokens per parameter above.')
        return
    L = lambda N, D: f['E'] + f['A'] * N ** -f['alpha'] + f['B'] * D ** -f['beta']
    print(f"\nFit on {len(pts)} stable-phase points: L = {f['E']:.3f} + {f['A']:.4g} / N^{f['alpha']:.2f} + {f['B']:.4g} / D^{f['beta']:.2f} (rmse {f['rmse']:.4f} nats)\n")
    print('| shape | stable-curve prediction at the end | decay gain |' + ''.join(f' {h:g} h: predicted loss |' for h in hours))
    print('| --- | ---: | ---: |' + ' ---: |' * len(hours))
    for n, r in runs.items():
        d_end, l_end = r['last']
        gain = L(r['N'], d_end) - l_end
        cells = [f" {L(r['N'], (r['tokens_per_s'] or 0) * 3600 * h) - gain:.2f} |" for h in hours]
        print(f"| {n} | {L(r['N'], d_end):.3f} | {gain:.3f} |" + ''.join(cells))

if __name__ == '__main__':
    main()

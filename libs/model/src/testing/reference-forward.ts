// A deliberately naive Qwen2 forward pass in plain loops over Float64 numbers, written from the
// architecture's definition, independent of the tfjs model code. Tests compare the two on shapes
// the golden fixtures do not cover (head counts, rope_theta, head_dim, vocab sizes).
import { HostTensor } from '../safetensors';

export interface RefConfig {
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim?: number;
  rms_norm_eps: number;
  rope_theta: number;
  tie_word_embeddings: boolean;
}

type W = Map<string, HostTensor>;

const get = (w: W, name: string) => {
  const t = w.get(name);
  if (!t) throw new Error(`reference: missing ${name}`);
  return t;
};

/** y[o] = sum_i x[i] * W[o, i] + b[o]; W stored [out, in] */
function linear(x: number[], w: HostTensor, b?: HostTensor): number[] {
  const [out, inp] = w.shape;
  const y = new Array<number>(out).fill(0);
  for (let o = 0; o < out; o++) {
    let s = b ? b.data[o] : 0;
    for (let i = 0; i < inp; i++) s += x[i] * w.data[o * inp + i];
    y[o] = s;
  }
  return y;
}

function rms(x: number[], w: HostTensor, eps: number): number[] {
  const ms = x.reduce((s, v) => s + v * v, 0) / x.length;
  const r = 1 / Math.sqrt(ms + eps);
  return x.map((v, i) => v * r * w.data[i]);
}

/** rotate-half RoPE of one head vector at position pos */
function rope(v: number[], pos: number, theta: number): number[] {
  const hd = v.length;
  const half = hd / 2;
  const out = new Array<number>(hd);
  for (let i = 0; i < half; i++) {
    const ang = pos * Math.pow(theta, -(2 * i) / hd);
    const c = Math.cos(ang);
    const s = Math.sin(ang);
    out[i] = v[i] * c - v[i + half] * s;
    out[i + half] = v[i + half] * c + v[i] * s;
  }
  return out;
}

/** One unpadded sequence -> logits [T][V] */
export function referenceLogits(cfg: RefConfig, w: W, ids: number[]): number[][] {
  const D = cfg.hidden_size;
  const H = cfg.num_attention_heads;
  const KV = cfg.num_key_value_heads;
  const hd = cfg.head_dim ?? D / H;
  const emb = get(w, 'model.embed_tokens.weight');
  let xs = ids.map((id) => Array.from(emb.data.subarray(id * D, (id + 1) * D)));
  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = (n: string) => get(w, `model.layers.${l}.${n}`);
    const hs = xs.map((x) => rms(x, p('input_layernorm.weight'), cfg.rms_norm_eps));
    const qs = hs.map((h) => linear(h, p('self_attn.q_proj.weight'), p('self_attn.q_proj.bias')));
    const ks = hs.map((h) => linear(h, p('self_attn.k_proj.weight'), p('self_attn.k_proj.bias')));
    const vs = hs.map((h) => linear(h, p('self_attn.v_proj.weight'), p('self_attn.v_proj.bias')));
    const head = (v: number[], h: number) => v.slice(h * hd, (h + 1) * hd);
    const attnOut = xs.map((_, t) => {
      const o: number[] = [];
      for (let h = 0; h < H; h++) {
        const g = Math.floor(h / (H / KV)); // the kv head this query head reads
        const q = rope(head(qs[t], h), t, cfg.rope_theta);
        const scores: number[] = [];
        for (let j = 0; j <= t; j++) {
          const k = rope(head(ks[j], g), j, cfg.rope_theta);
          scores.push(q.reduce((s, qi, i) => s + qi * k[i], 0) / Math.sqrt(hd));
        }
        const m = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - m));
        const z = e.reduce((a, b) => a + b, 0);
        const ctx = new Array<number>(hd).fill(0);
        e.forEach((ej, j) => head(vs[j], g).forEach((vi, i) => (ctx[i] += (ej / z) * vi)));
        o.push(...ctx);
      }
      return linear(o, p('self_attn.o_proj.weight'));
    });
    xs = xs.map((x, t) => x.map((v, i) => v + attnOut[t][i]));
    xs = xs.map((x) => {
      const h = rms(x, p('post_attention_layernorm.weight'), cfg.rms_norm_eps);
      const g = linear(h, p('mlp.gate_proj.weight'));
      const u = linear(h, p('mlp.up_proj.weight'));
      const a = g.map((gi, i) => (gi / (1 + Math.exp(-gi))) * u[i]);
      const d = linear(a, p('mlp.down_proj.weight'));
      return x.map((v, i) => v + d[i]);
    });
  }
  const headW = get(w, cfg.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  return xs.map((x) => linear(rms(x, get(w, 'model.norm.weight'), cfg.rms_norm_eps), headW));
}

// The wire of the `openai:URL` engine, shared by its client (openai.ts) and the local server that speaks it
// (serve-openai.ts): zod schemas of what vLLM and SGLang answer (the fields the engine reads; every other field is
// let through), the subset of vLLM's /v1/completions request the local server implements, and the seed rule that
// makes an OpenAI-style integer `seed` carry generateBatch's per-prompt stream. Where each shape comes from:
// fixtures/README.md.
import { z } from 'zod';
import { resumableRng, type Rng } from '@rlhf-code/model';

const tokenId = z.number().int().nonnegative();

/** GET /v1/models (vLLM's ModelCard; SGLang's has the same fields, owned_by "sglang"). */
export const ModelListSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      owned_by: z.string().optional(),
      root: z.string().nullish(),
      parent: z.string().nullish(),
      max_model_len: z.number().int().nullish(),
    }),
  ),
});
export type ModelList = z.output<typeof ModelListSchema>;

/** vLLM POST /v1/completions, non-streaming. */
export const CompletionResponseSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().int(),
        text: z.string(),
        logprobs: z.object({ token_logprobs: z.array(z.number().nullable()), tokens: z.array(z.string()) }).nullish(),
        finish_reason: z.string().nullish(),
        stop_reason: z.union([z.number().int(), z.string()]).nullish(),
        token_ids: z.array(tokenId).nullish(),
      }),
    )
    .min(1),
});

/** SGLang POST /generate, one prompt, non-streaming. */
export const GenerateResponseSchema = z.object({
  text: z.string().optional(),
  output_ids: z.array(tokenId).optional(),
  meta_info: z.object({
    finish_reason: z
      .object({ type: z.string(), matched: z.union([z.number().int(), z.string(), z.array(z.number().int())]).nullish() })
      .nullish(),
    output_token_logprobs: z.array(z.tuple([z.number().nullable(), tokenId], z.unknown())).optional(),
  }),
});

/** POST /tokenize (vLLM; SGLang's /tokenize and /v1/tokenize answer the same `tokens`). */
export const TokenizeResponseSchema = z.object({ tokens: z.array(tokenId) });

/** SGLang's answers to its LoRA and weight routes (LoRAUpdateOutput, UpdateWeightFromDiskReqOutput). */
export const SglangResultSchema = z.object({ success: z.boolean(), error_message: z.string().nullish(), message: z.string().nullish() });

/**
 * The message of an error answer, in the forms the servers use: vLLM `{"error": {"message"}}` (and `{"error":
 * "Unauthorized"}`), SGLang `{"message"}` / `{"error_message"}`, FastAPI `{"detail"}`; else the body's text.
 */
export function errorMessageOf(body: string): string {
  try {
    const j = JSON.parse(body) as Record<string, unknown>;
    const e = j.error;
    const found = (typeof e === 'object' && e !== null ? (e as Record<string, unknown>).message : e) ?? j.error_message ?? j.message ?? j.detail;
    if (typeof found === 'string' && found) return found;
  } catch {
    // not JSON: the text itself
  }
  const text = body.trim();
  return text.length > 300 ? `${text.slice(0, 300)}...` : text || '(empty body)';
}

/**
 * The request body the local server accepts on POST /v1/completions: vLLM's CompletionRequest where it matters for
 * token-in/token-out sampling. Sampling controls the project's decoder does not have (penalties, min-p, echo,
 * streaming, top-n log-probs) are accepted only at their neutral values, so a request is never silently changed;
 * fields it does not know are ignored, as vLLM ignores them.
 */
export const CompletionRequestSchema = z
  .object({
    model: z.string().nullish(),
    prompt: z.union([z.array(tokenId).min(1), z.array(z.array(tokenId).min(1)).min(1), z.string().min(1)]),
    max_tokens: z.number().int().min(1).nullish(),
    min_tokens: z.number().int().min(0).default(0),
    n: z.number().int().min(1).default(1),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().gt(0).lte(1).nullish(),
    top_k: z.number().int().min(-1).nullish(),
    min_p: z.number().nullish(),
    repetition_penalty: z.number().nullish(),
    presence_penalty: z.number().nullish(),
    frequency_penalty: z.number().nullish(),
    seed: z.number().int().nullish(),
    stop: z.union([z.string().min(1), z.array(z.string().min(1))]).nullish(),
    stop_token_ids: z.array(tokenId).nullish(),
    ignore_eos: z.boolean().default(false),
    include_stop_str_in_output: z.boolean().default(false),
    logprobs: z.number().int().nullish(),
    return_token_ids: z.boolean().nullish(),
    return_tokens_as_token_ids: z.boolean().nullish(),
    logit_bias: z.record(z.string(), z.number()).nullish(),
    allowed_token_ids: z.array(tokenId).nullish(),
    echo: z.boolean().default(false),
    stream: z.boolean().default(false),
    use_beam_search: z.boolean().default(false),
  })
  .superRefine((r, ctx) => {
    const neutral = (field: string, value: unknown, ok: unknown) => {
      if (value !== undefined && value !== null && value !== ok) ctx.addIssue({ code: 'custom', path: [field], message: `this server implements only ${String(ok)}` });
    };
    neutral('min_p', r.min_p, 0);
    neutral('repetition_penalty', r.repetition_penalty, 1);
    neutral('presence_penalty', r.presence_penalty, 0);
    neutral('frequency_penalty', r.frequency_penalty, 0);
    neutral('logprobs', r.logprobs, 0);
    neutral('echo', r.echo, false);
    neutral('stream', r.stream, false);
    neutral('use_beam_search', r.use_beam_search, false);
    neutral('include_stop_str_in_output', r.include_stop_str_in_output, false);
    if (r.min_tokens > (r.max_tokens ?? 16)) ctx.addIssue({ code: 'custom', path: ['min_tokens'], message: `must be at most max_tokens (${r.max_tokens ?? 16})` });
  });
export type CompletionRequest = z.output<typeof CompletionRequestSchema>;

/**
 * The seed rule across the wire. generateBatch gives prompt i the stream resumableRng(String(root.next())); alea's
 * draws are multiples of 2^-32, so `draw * 2^32` is an exact integer in [0, 2^32): an OpenAI `seed`. The local server
 * turns a seed back into that stream (seedStream), so a prompt sent with drawSeed(root) samples exactly what the local
 * engine samples for it with the same root. Any other server just uses the integer as its own seed.
 */
const SEED_SCALE = 2 ** 32;

export function drawSeed(rng: Rng): number {
  return Math.round(rng.next() * SEED_SCALE);
}

export function seedStream(seed: number): Rng {
  return resumableRng(String(seed / SEED_SCALE));
}

/** The name (vLLM `model`, SGLang `lora_path`) and the shared folder of policy version `v`. */
export function versionName(v: number): string {
  return `policy-v${v}`;
}

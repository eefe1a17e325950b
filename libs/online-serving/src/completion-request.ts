// A completion request, read: the body checked against OpenAI's legacy completions API (unknown fields ignored), its
// prompts encoded as the server reads them (FIM-aware left truncation within the window and completion.maxPromptTokens),
// Continue's line rule set up per FIM prompt, and the sampling it asks for. The result is a ServingRequest, fixed once
// read and routed: the gate (completion-gating.ts) plans how it is held and judges what was generated, the scheduler
// (completion-scheduling.ts) generates it; each returns what it finds out, none of them writes to it. Its clock is the
// wall clock or, with completion.clock "simulated", the latency model's (libs/continue latency.ts).
import { createHash, randomUUID } from 'crypto';
import { z } from 'zod';
import { sampledIds, type Completion } from '@rlhf-code/model';
import { encodeServedPrompt, parseFim, PromptError, type Tokenizer } from '@rlhf-code/tokenizer';
import { lineRuleFor, simulatedMs, type LineRuleOptions } from '@rlhf-code/continue';
import type { ArmSpec, CompletionServerSchema } from '@rlhf-code/online-core';

export type CompletionServerConfig = z.output<typeof CompletionServerSchema>;

const nullable = <T extends z.ZodType>(t: T) => t.nullish();

export const CompletionRequestSchema = z.looseObject({
  model: nullable(z.string()),
  prompt: z.union([z.string(), z.array(z.string()).min(1)]),
  max_tokens: nullable(z.number().int().min(0)),
  /** vLLM's extension: no end token before this many tokens (default: config minTokens). */
  min_tokens: nullable(z.number().int().min(0)),
  temperature: nullable(z.number().min(0).max(2)),
  top_p: nullable(z.number().gt(0).max(1)),
  n: nullable(z.number().int().min(1).max(8)),
  stop: nullable(z.union([z.string(), z.array(z.string())])),
  stream: nullable(z.boolean()),
  seed: nullable(z.number().int()),
});
export type CompletionRequest = z.output<typeof CompletionRequestSchema>;

/** One choice's prompt (one per prompt x n): its text and ids, and (FIM prompts only) Continue's line rule. */
export interface ChoicePrompt {
  readonly text: string;
  readonly ids: number[];
  readonly line: LineRuleOptions | null;
}

/** A completion request as read and routed: fixed from here on (what serving it finds out is returned, not written here). */
export interface ServingRequest {
  readonly id: string;
  /** The model name the request asked for (answers carry it back), or the configured name. */
  readonly model: string;
  readonly created: number;
  readonly arm: ArmSpec;
  /** One per choice (prompt x n). */
  readonly prompts: readonly ChoicePrompt[];
  /** Date.now() when the request arrived: the line rule's wall clock. */
  readonly t0: number;
  readonly maxTokens: number;
  /** No end token (nor FIM/control token) before this many tokens. */
  readonly minTokens: number;
  /**
   * Instead of minTokens on the policy once an update has trained it (version >= 1): training.userRm.minTokens under
   * an RL objective when the request gave no min_tokens; null: minTokens on every model.
   */
  readonly trainedMinTokens: number | null;
  /** Prompt tokens over the request's prompts (each counted once, whatever n is). */
  readonly promptTokens: number;
  /** The prefix cache's key (prefixCacheKey): whose prompt this is; null for several prompts or choices. */
  readonly cacheKey: string | null;
}

export type Sampling = { temperature: number; topP: number; seed: number | string };

/** A request that cannot be served as sent: the field it is about and what is wrong (answered 400). */
export interface RequestProblem {
  field: string;
  message: string;
}

/** A checked request: the request without its arm (the router assigns it once the request is admitted), its stop strings. */
export interface ReadRequest {
  body: CompletionRequest;
  request: Omit<ServingRequest, 'arm' | 'trainedMinTokens' | 'cacheKey'>;
  stops: string[];
}

/** Check a request body against the schema (cheap: nothing is encoded yet). */
export function parseCompletionBody(raw: unknown): { ok: true; body: CompletionRequest } | { ok: false; problem: RequestProblem } {
  const parsed = CompletionRequestSchema.safeParse(raw);
  if (parsed.success) return { ok: true, body: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join('.') || '(body)';
  return { ok: false, problem: { field, message: `${field}: ${issue.message}` } };
}

/** The choices a request asks for: one per prompt and sample (n). */
export const choicesOf = (body: CompletionRequest) => (typeof body.prompt === 'string' ? 1 : body.prompt.length) * (body.n ?? 1);

/** Encode a checked request; `window`: the tokens prompt and completion may use. */
export function readCompletionRequest(body: CompletionRequest, config: CompletionServerConfig, tok: Tokenizer, window: number): ReadRequest | RequestProblem {
  const t0 = Date.now();
  const maxTokens = Math.min(body.max_tokens ?? config.defaultMaxTokens, config.maxTokensCap);
  const texts = typeof body.prompt === 'string' ? [body.prompt] : body.prompt;
  const n = body.n ?? 1;
  let encoded;
  try {
    encoded = texts.map((t) => encodeServedPrompt(tok, t, Math.min(window - maxTokens, config.maxPromptTokens), config.repoContext));
  } catch (e) {
    if (e instanceof PromptError) return { field: e.field, message: `${e.field}: ${e.message}` };
    throw e;
  }
  const request: ReadRequest['request'] = {
    id: `cmpl-${randomUUID()}`,
    model: body.model ?? config.modelName,
    created: Math.floor(Date.now() / 1000),
    t0,
    prompts: texts.flatMap((text, i) => {
      const e = encoded[i];
      const line = e.prefix === null ? null : lineRuleFor({ prefix: e.prefix, suffix: e.suffix! }, config.multiline, config.showWithinMs);
      return Array.from({ length: n }, () => ({ text, ids: e.ids, line }));
    }),
    maxTokens,
    minTokens: body.min_tokens ?? config.minTokens,
    promptTokens: encoded.reduce((sum, e) => sum + e.ids.length, 0),
  };
  const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return { body, request, stops };
}

/**
 * Whose prompt a read request is, for the prefix cache: the client (its API key and address, hashed: the key is a
 * secret) and, when an upstream prompt's repository header names it, the file (1.3.9's prompt names it only inside
 * the prefix's comments, so its files share the client's one entry). null for several prompts or choices: they decode
 * as one batch, which the prefix cache does not serve. Called once readCompletionRequest has accepted the prompt.
 */
export function prefixCacheKey(body: CompletionRequest, client: { apiKey: string | null; address: string }): string | null {
  if (choicesOf(body) !== 1) return null;
  const file = parseFim(typeof body.prompt === 'string' ? body.prompt : body.prompt[0])?.repo?.path ?? '';
  const who = createHash('sha256').update(`${client.apiKey ?? ''}\0${client.address}`).digest('hex').slice(0, 16);
  return `${who}:${file}`;
}

/** What a clock needs of a request (a ServingRequest, or the generation request made of it). */
export interface Timed {
  /** Date.now() when the request arrived. */
  t0: number;
  prompts: readonly { ids: readonly number[] }[];
}

/** The clock of Continue's time rules for a request: the wall clock, or (completion.clock "simulated") the latency model. */
export interface ServingClock {
  simulated: boolean;
  /** The simulated ms at which `steps` decoding steps of the request are done (its longest prompt: the batch is padded to it). */
  simAt(request: Timed, steps: number): number;
  /** Ms since the request when a row has decoded `steps` steps: the latency model's, or the wall clock's now. */
  elapsed(request: Timed, steps: number): number;
}

export function servingClock(config: Pick<CompletionServerConfig, 'clock' | 'simulatedLatency'>): ServingClock {
  const simulated = config.clock === 'simulated';
  const simAt = (r: Timed, steps: number) => simulatedMs(config.simulatedLatency, Math.max(...r.prompts.map((p) => p.ids.length)), steps);
  return { simulated, simAt, elapsed: (r, steps) => (simulated ? simAt(r, steps) : Date.now() - r.t0) };
}

/** Decoding steps a request's batch ran: its longest row's sampled tokens. */
export const stepsOf = (gens: Completion[]) => Math.max(0, ...gens.map((g) => sampledIds(g).length));

// A completion request, read: the body checked against OpenAI's legacy completions API (unknown fields ignored), its
// prompts encoded as the server reads them (FIM-aware left truncation within the window and completion.maxPromptTokens),
// Continue's line rule set up per FIM prompt, and the sampling it asks for. The result is a Job, the unit the scheduler
// (completion-scheduling.ts) generates and the gate (completion-gating.ts) judges; its clock is the wall clock or, with
// completion.clock "simulated", the latency model's (libs/continue latency.ts).
import { randomUUID } from 'crypto';
import { z } from 'zod';
import { sampledIds, type Completion } from '@rlhf-code/model';
import { encodeServedPrompt, PromptError, type Tokenizer } from '@rlhf-code/tokenizer';
import { LineRule, lineRuleFor, simulatedMs, type LineRuleOptions } from '@rlhf-code/continue';
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

export interface Job {
  id: string;
  /** The model name the request asked for (answers carry it back), or the configured name. */
  model: string;
  created: number;
  arm: ArmSpec;
  // One per choice (prompt x n); `line` and `rule`: FIM prompts only (Continue's line rule, and its state while decoding).
  prompts: { text: string; ids: number[]; line: LineRuleOptions | null; rule: LineRule | null }[];
  /** Held for the gate: sent whole once judged (so Continue sees every line arrive at that moment). */
  held: boolean;
  /** Rows of `prompts` per choice: the gate's candidates while held, else 1 (the gate's choice leaves one per choice). */
  per: number;
  /** The lowest temperature of a choice's candidates after its first. */
  alternativeTemperature: number;
  /** Date.now() when the request arrived: the line rule's wall clock. */
  t0: number;
  /** Per row: the simulated ms its latest text counts as arriving (the `sim_ms` of its chunks). */
  simMs: number[];
  maxTokens: number;
  /** No end token (nor FIM/control token) before this many tokens. */
  minTokens: number;
  /**
   * Instead of minTokens on the policy once an update has trained it (version >= 1): training.userRm.minTokens under
   * an RL objective when the request gave no min_tokens; null: minTokens on every model.
   */
  trainedMinTokens: number | null;
  /** Prompt tokens over the request's prompts (each counted once, whatever n is). */
  promptTokens: number;
  versions: number[]; // version of each decoding step, in order
}

export type Sampling = { temperature: number; topP: number; seed: number | string };

/** A request that cannot be served as sent: the field it is about and what is wrong (answered 400). */
export interface RequestProblem {
  field: string;
  message: string;
}

/** A checked request: its job (not yet routed to an arm), its stop strings and how to sample. */
export interface ReadRequest {
  body: CompletionRequest;
  /** The job without its arm: the router assigns it once the request is admitted. */
  job: Omit<Job, 'arm' | 'trainedMinTokens'>;
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

/** Encode a checked request into its job; `window`: the tokens prompt and completion may use. */
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
  const job: Omit<Job, 'arm' | 'trainedMinTokens'> = {
    id: `cmpl-${randomUUID()}`,
    model: body.model ?? config.modelName,
    created: Math.floor(Date.now() / 1000),
    held: false,
    per: 1,
    alternativeTemperature: 0,
    t0,
    simMs: [],
    prompts: texts.flatMap((text, i) => {
      const e = encoded[i];
      const line = e.prefix === null ? null : lineRuleFor({ prefix: e.prefix, suffix: e.suffix! }, config.multiline, config.showWithinMs);
      return Array.from({ length: n }, () => ({ text, ids: e.ids, line, rule: line && new LineRule(line) }));
    }),
    maxTokens,
    minTokens: body.min_tokens ?? config.minTokens,
    promptTokens: encoded.reduce((sum, e) => sum + e.ids.length, 0),
    versions: [],
  };
  const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  return { body, job, stops };
}

/** What a clock needs of a job (a Job, or the generation request made of it). */
export interface Timed {
  /** Date.now() when the request arrived. */
  t0: number;
  prompts: readonly { ids: readonly number[] }[];
}

/** The clock of Continue's time rules for a job: the wall clock, or (completion.clock "simulated") the latency model. */
export interface JobClock {
  simulated: boolean;
  /** The simulated ms at which `steps` decoding steps of the job are done (its longest prompt: the batch is padded to it). */
  simAt(job: Timed, steps: number): number;
  /** Ms since the request when a row has decoded `steps` steps: the latency model's, or the wall clock's now. */
  elapsed(job: Timed, steps: number): number;
}

export function jobClock(config: Pick<CompletionServerConfig, 'clock' | 'simulatedLatency'>): JobClock {
  const simulated = config.clock === 'simulated';
  const simAt = (job: Timed, steps: number) => simulatedMs(config.simulatedLatency, Math.max(...job.prompts.map((p) => p.ids.length)), steps);
  return { simulated, simAt, elapsed: (job, steps) => (simulated ? simAt(job, steps) : Date.now() - job.t0) };
}

/** Decoding steps the job's batch ran: its longest row's sampled tokens. */
export const stepsOf = (gens: Completion[]) => Math.max(0, ...gens.map((g) => sampledIds(g).length));

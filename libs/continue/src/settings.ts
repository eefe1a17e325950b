// The settings of `online simulate`: a simulated Continue user replaying FIM examples against running servers.
import { z } from 'zod';
import { PROMPT_FORMS } from './continue-client';
import { SIM_USERS } from './sim-users';

const int = () => z.number().int();

/**
 * The Continue config of RLinf's coding_online_rl example, which the online servers' defaults and the simulated user's
 * follow, so that it works unchanged: the model it names, the API key it sends, the ports of its completion apiBase and
 * its completionTrackingUrl, the bearer token and project of its completionTrackingHeaders.
 */
export const RLINF_EXAMPLE = { model: 'Qwen2.5-Coder-1.5B', apiKey: 'xxx', completionPort: 8081, feedbackPort: 8082, token: 'test-token', project: 'test-project' } as const;

export const SimulateSettings = z.strictObject({
  data: z.string().min(1).describe('FIM JSONL from prep-fim (e.g. data/fim/fim.jsonl)'),
  events: int().positive().describe('completion requests to make'),
  split: z.enum(['train', 'test', 'all']).default('train').describe('which examples: train, test or all'),
  completionUrl: z.url().default(`http://127.0.0.1:${RLINF_EXAMPLE.completionPort}/v1/completions`).describe('completions endpoint'),
  feedbackUrl: z.url().default(`http://127.0.0.1:${RLINF_EXAMPLE.feedbackPort}/api/training/submit`).describe('feedback endpoint'),
  feedback: z.boolean().default(true).describe('post outcomes (off: measure only)'),
  token: z.string().min(1).default(RLINF_EXAMPLE.token).describe('bearer token for the feedback server'),
  project: z.string().min(1).default(RLINF_EXAMPLE.project).describe('X-Project-ID for the feedback server'),
  apiKey: z.string().min(1).default(RLINF_EXAMPLE.apiKey).describe('API key sent to the completion server, as Continue does'),
  model: z.string().min(1).default(RLINF_EXAMPLE.model).describe('model name sent in requests (Continue sends its configured name)'),
  tokenizer: z.string().min(1).default('models/tokenizer-code16k').describe("tokenizer used to apply Continue's prompt budgets"),
  maxPromptTokens: int().positive().default(1024).describe("Continue's maxPromptTokens (prefix <= 30%, suffix <= 20%)"),
  seed: int().default(0).describe('order of the examples'),
  reportEvery: int().nonnegative().default(10).describe('print acceptance every n requests (0 = only the final table)'),
  json: z.string().min(1).optional().describe('also write the summary (per version, per arm, timeline) as one JSON line'),
  user: z
    .enum(SIM_USERS)
    .default('exact')
    .describe(
      'who judges (libs/continue/src/sim-users.ts): exact (first line = what they meant), close (first line within 30% edits of it), graded (probability falling with the edits), lenient (exact mostly, plausible sometimes), whole (every shown line against what they meant), terse (as graded, multi-line suggestions rarely), compiles / no-comment / long (functions of the gate features), coin (the negative control: 40% at random)',
    ),
  form: z.enum(PROMPT_FORMS).default('v139').describe("Continue's prompt form: v139 (RLinf's 1.3.9, commented context) or head (upstream, <|repo_name|> header)"),
  corpus: z.string().min(1).default('data/vendor/cpython/python-stdlib').describe('folder the examples were cut from (the user judges the suggestion in its whole file)'),
  rejectDelay: int().nonnegative().default(5).describe('requests after which a rejection is posted (Continue rejects after 10 s without Tab)'),
  clock: z
    .enum(['wall', 'simulated'])
    .default('wall')
    .describe("Continue's clock for its 150 ms and 375 ms rules: wall (when each chunk arrived) or simulated (each chunk's sim_ms, from a server with completion.clock simulated)"),
});
export type SimulateSettings = z.output<typeof SimulateSettings>;

// A served completion as the parts of the service see it. ServedRecord: what the completion server
// (@rlhf-code/online-serving) records of it, logged to <stateDir>/requests.jsonl, counted and matched with its outcome
// (@rlhf-code/online-feedback), drawn on the live page (@rlhf-code/online-page history.ts). GateInput: the suggestion as
// the show gate (@rlhf-code/online-gate) judges it, which the completion server hands over while it holds it.
import { createHash } from 'crypto';
import type { Arm } from './arms';

/** One served completion (one choice of a response), as written to <stateDir>/requests.jsonl. */
export interface ServedRecord {
  id: string;
  version: number;
  arm: Arm;
  /** sha256 of the prompt text (the key outcomes are matched by; the prompt itself is not kept on disk). */
  promptHash: string;
  /** Every version that produced a token of it (more than one when weights were swapped mid-generation). */
  versions: number[];
  /** The answer was blank: nothing for Continue to show. (Older logs have `shown` = not blank instead.) */
  blank: boolean;
  /** The show gate hid the suggestion (libs/online-gate gate.ts): answered blank, not a sample of the policy's silence. */
  gated?: boolean;
  /** stop | length | abort (the client went away; the text is what it had received). */
  finishReason: string;
  /** The model ended the text with its own end token (not a stop string, the line rule, max_tokens or an abort). */
  endedByModel: boolean;
  promptTokens: number;
  completionTokens: number;
  time: string;
  /** Wall ms from the request's arrival to this record (the answer complete, or the client gone); absent in older logs. */
  durationMs?: number;
}

export const hashPrompt = (prompt: string): string => createHash('sha256').update(prompt, 'utf8').digest('hex');

/** What the gate judges: a served suggestion and the prompt it answers. */
export interface GateInput {
  prompt: string;
  text: string;
  tokens: number;
  endedByModel: boolean;
  /** The model's log-probs (temperature 1) of the suggestion's tokens; empty when unknown (its features are then 0). */
  logprobs: readonly number[];
}

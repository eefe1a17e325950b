// A served-completion record for tests: policy arm, version 0, not blank, ended by the model; `o` overrides.
import { hashPrompt, type ServedRecord } from '../served-record';

export const servedRecord = (id: string, prompt: string, o: Partial<ServedRecord> = {}): ServedRecord => ({
  id,
  version: 0,
  arm: 'policy',
  promptHash: hashPrompt(prompt),
  versions: [0],
  blank: false,
  finishReason: 'stop',
  endedByModel: true,
  promptTokens: 10,
  completionTokens: 3,
  time: 'now',
  ...o,
});

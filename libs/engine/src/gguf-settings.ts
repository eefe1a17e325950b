// The settings of `generate gguf` (a checkpoint or a PEFT adapter exported for llama.cpp, gguf.ts), declared once:
// flags, --help and --config come from this schema.
import { z } from 'zod';

export const GgufSettings = z
  .strictObject({
    model: z
      .string()
      .min(1)
      .optional()
      .describe('checkpoint folder (config.json + model.safetensors, bf16 or f32, and tokenizer.json), or a LoRA adapter folder (folded into its base): written as an F32 GGUF with the tokenizer'),
    adapter: z
      .string()
      .min(1)
      .optional()
      .describe("PEFT LoRA adapter folder (adapter_config.json + adapter_model.safetensors): written as a LoRA GGUF, for llama.cpp to apply on its base's GGUF"),
    out: z.string().min(1).describe('the .gguf file to write (replaced if it exists)'),
    weights: z.enum(['F32', 'Q8_0']).default('F32').describe("--model: the matrices' type, F32 or Q8_0 (ggml's 8-bit blocks, a quarter of the bytes; the norms and biases stay F32)"),
  })
  .superRefine((f, ctx) => {
    if ((f.model === undefined) === (f.adapter === undefined)) ctx.addIssue({ code: 'custom', path: ['model'], message: 'pass exactly one of --model or --adapter' });
    if (f.adapter !== undefined && f.weights !== 'F32') ctx.addIssue({ code: 'custom', path: ['weights'], message: 'an adapter is written in F32 (its matrices are small); --weights applies to --model' });
  });
export type GgufSettings = z.output<typeof GgufSettings>;

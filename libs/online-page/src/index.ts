// @rlhf-code/online-page: the live page of an online run (GET / on the feedback server, live-page.ts): the status'
// figures per arm, and charts (live-charts.ts, drawn to SVG in a worker thread) of the run's history in windows of
// requests (history.ts, also GET /api/training/history).
export { escapeHtml, LivePage } from './live-page';
export { RunHistory, type HistorySeries } from './history';

// @rlhf-code/online-gate: the show gate, a logistic regression learnt online from the outcomes that decides whether a
// policy suggestion is worth showing (gate.ts), its features of a Python suggestion (python-features.ts), and the
// thread its refits run in (gate-fit-thread.ts).
export { L2_GRID, loadGateModel, ShowGate, type GateDecision, type GateModel } from './gate';
export { GateFitThread } from './gate-fit-thread';
export { GATE_FEATURES, gateFeatures } from './python-features';

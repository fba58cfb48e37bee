// How long the server's only thread works for one command before the other connections get a
// turn: mongod's queries and writes yield their locks after this much work
// (internalQueryExecYieldPeriodMS). A change stream draining a backlog and a write command of
// many statements both yield on it.
export { setImmediate as yieldToOtherConnections } from "node:timers/promises";

export const YIELD_PERIOD_MS = 10;

// What the replicas bench computes from its drains: each replica's share of the stream and of
// the corrections, CPU per correction, and the model of docs/benchmarks.md ("replicas").

/** One replica's counts over a drain, from its /metrics and its process's CPU time. */
export interface ReplicaCounts {
  eventsReceived: number;
  corrections: number;
  /** Its CPU time over the drain, in ms; undefined where /proc cannot tell. */
  cpuMs: number | undefined;
}

export interface ReplicaShares {
  /** Each replica's events received over `streamEvents` (one replica's whole stream). */
  eventShares: number[];
  /** The most corrections one replica made over the fewest (Infinity when one made none). */
  correctionsMaxOverMin: number;
  /** The replicas' CPU summed, over their corrections summed, in ms; undefined without CPU. */
  cpuPerCorrectionMs: number | undefined;
  /** The replicas' CPU summed, over their events received summed, in ms; undefined without CPU. */
  cpuPerEventMs: number | undefined;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** The CPU of every replica summed, or undefined when one's could not be read. */
export function summedCpuMs(replicas: readonly ReplicaCounts[]): number | undefined {
  const cpu = replicas.map((replica) => replica.cpuMs);
  return cpu.every((ms) => ms !== undefined) ? sum(cpu as number[]) : undefined;
}

export function replicaShares(replicas: readonly ReplicaCounts[], streamEvents: number): ReplicaShares {
  const corrections = replicas.map((replica) => replica.corrections);
  const cpuMs = summedCpuMs(replicas);
  const per = (items: number) => (cpuMs === undefined ? undefined : cpuMs / items);
  return {
    eventShares: replicas.map((replica) => replica.eventsReceived / streamEvents),
    correctionsMaxOverMin: Math.max(...corrections) / Math.min(...corrections),
    cpuPerCorrectionMs: per(sum(corrections)),
    cpuPerEventMs: per(sum(replicas.map((replica) => replica.eventsReceived))),
  };
}

/**
 * The replicas' CPU per correction over a phase of `phaseMs`, less what each spends idle
 * (`idleShares`: the share of a core each takes at rest); undefined without CPU figures.
 */
export function activeCpuPerCorrectionMs(
  replicas: readonly ReplicaCounts[],
  idleShares: readonly (number | undefined)[],
  phaseMs: number,
): number | undefined {
  const cpuMs = summedCpuMs(replicas);
  if (cpuMs === undefined || idleShares.some((share) => share === undefined)) return undefined;
  const idleMs = sum(idleShares as number[]) * phaseMs;
  return (cpuMs - idleMs) / sum(replicas.map((replica) => replica.corrections));
}

/** The least-squares line through `points` ([x, y]): y = intercept + slope * x. */
export function fitLine(points: readonly (readonly [number, number])[]): {
  intercept: number;
  slope: number;
} {
  const meanX = sum(points.map(([x]) => x)) / points.length;
  const meanY = sum(points.map(([, y]) => y)) / points.length;
  const spread = sum(points.map(([x]) => (x - meanX) ** 2));
  const slope = spread === 0 ? 0 : sum(points.map(([x, y]) => (x - meanX) * (y - meanY))) / spread;
  return { intercept: meanY - slope * meanX, slope };
}

/** The drain's costs the model scales: the replicas' by corrections, the server's by streams. */
export interface DrainModel {
  corrections: number;
  /** The replicas' CPU per correction, summed over them, less what they spend idle. */
  replicaCpuPerCorrectionMs: number;
  /** The share of a core a replica takes while idle (heartbeats, lease rounds, empty getMores). */
  replicaIdleShare: number;
  /** The server's CPU that does not grow with the streams: the corrections' commands. */
  serverFixedMs: number;
  /** The server's CPU per change stream over the backlog: each stream scans the whole oplog. */
  serverPerStreamMs: number;
}

/**
 * How long the drain takes when CPU-bound with `cores` cores: each of `replicas` replicas on a
 * core of its own with an equal share of the corrections, the server on the others, its work
 * spread over them (mongod runs a thread per connection; the embedded server has one).
 */
export function projectedDrainMs(model: DrainModel, cores: number, replicas: number): number {
  if (replicas >= cores)
    throw new Error(`the model leaves the server no core: ${replicas} replicas, ${cores} cores`);
  const replicaMs =
    (model.replicaCpuPerCorrectionMs * model.corrections) / replicas / (1 - model.replicaIdleShare);
  const serverMs = (model.serverFixedMs + model.serverPerStreamMs * replicas) / (cores - replicas);
  return Math.max(replicaMs, serverMs);
}

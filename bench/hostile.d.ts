// The types of bench/hostile.js, for the brief run of test/security/hostile-tenant.test.ts.

export interface Scale {
  workers: number;
  relayPosters: number;
  slowSockets: number;
  stalledStreams: number;
  bigBody: number;
  oversizedBytes: number;
  subscriptionRelays: number;
  /** Parallel loops of the sign-in flood. */
  signInFlooders: number;
  /** Accounts of the stream grab, each holding every stream it may. */
  grabAccounts: number;
}

export interface CarefulRequest {
  method: string;
  path: string;
  status: number | null;
  injected?: boolean;
  error?: string;
  ms: number;
}

export interface AbuseStats {
  sent: number;
  statuses: Record<string, number>;
  errors: number;
  lastError: string | null;
}

export interface Figures {
  seconds: number;
  careful: {
    runs: { code: number | null; ready: boolean; notPassed: string[]; problem: string | null; ms: number }[];
    slowest: CarefulRequest[];
    requests: number;
    failed: CarefulRequest[];
    ready: boolean;
    p50Ms: number | null;
    p99Ms: number | null;
    maxMs: number | null;
    /** What the careful partner held through the abuse: its dashboard sessions and stream. */
    holdings: { sessions: number; sessionsKept: number; streamOpen: boolean; streamProblem: string | null };
  };
  process: {
    /** Login session files in the store at the end. */
    sessionsStored: number | null;
    up: boolean;
    health: number | null;
    peakHeapMb: number | null;
    peakRssMb: number | null;
    heapLimitMb: number;
    headroom: number | null;
    crash: string | null;
  };
  abuses: Record<string, AbuseStats>;
}

export const FULL: Scale;
export const BRIEF: Scale;
export const ABUSES: readonly string[];
export const HOSTED_ENV: Readonly<Record<string, string>>;

export function hostileTenant(options: {
  durationMs: number;
  scale?: Scale;
  abuses?: readonly string[];
  entry?: { nodeArgs: string[]; main: string };
  log?: (line: string) => void;
  /** More settings of the sandbox (the bench's --max-sessions). */
  env?: Readonly<Record<string, string>>;
}): Promise<Figures>;

export function printFigures(figures: Figures): void;

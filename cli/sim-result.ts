/** The parts of the simulator's result the CLI renders (structural: the simulator's own type has more). */
interface SimNode {
  name: string;
  instanceType: string;
  capacityType: string;
  zone: string;
  nodePool?: string;
  launchedAt: number;
  readyAt?: number | null;
  interruptedAt?: number | null;
  terminatedAt?: number | null;
  terminationReason?: string | null;
}

interface SimEvent {
  t: number;
  message: string;
  level?: string;
  fields?: Record<string, unknown>;
}

export interface SimResultView {
  scenario?: { name: string };
  nodes: SimNode[];
  disruptions: { t: number; reason: string; nodes: unknown[]; replacements: number | unknown[] }[];
  /** What the scenario did (scale, apply, delete, interrupt …), for the timeline. */
  scenarioEvents?: { t: number; kind: string; description: string; ok: boolean; error?: string }[];
  pods: {
    total: number;
    pendingSecondsP50: number;
    pendingSecondsP99: number;
    maxPendingSeconds: number;
    minReadyAfterRollout?: Record<string, number>;
    launchLatencySecondsP50?: number;
    launchLatencySecondsP99?: number;
    maxLaunchLatencySeconds?: number;
    launchLatencyPods?: number;
  };
  cost: { total: number; perHourAtEnd: number };
  /** What consolidation saved and the pods it evicted for it (absent in results written before it existed). */
  consolidation?: { moves: number; savedPerMonth: number; podsEvicted: number; evictionsPer100PerMonth: number | null };
  /** nodewright's own AWS bill (absent in results written before it existed). */
  controller?: { usdPerMonth: { total: number; lambdaCompute: number; stepFunctions: number; [k: string]: number } };
  /** Per function: modelled peak memory and longest duration against size and timeout (absent in older results). */
  functions?: Record<
    string,
    {
      invocations: number;
      memorySizeMb: number;
      peakMemoryMb: number;
      outOfMemory: number;
      timeoutSeconds: number;
      maxDurationSeconds: number;
      kubeRequestsPerMinute: number;
      kubeBytesReceivedPerMinute: number;
    }
  >;
  violations: { pdb: number; doNotDisrupt: number; podsLost: number };
  final: { nodes: number; pendingPods: number; orphanInstances: number; leakedNodeClaims: number };
  events: SimEvent[];
  timeline?: { t: number; nodes: number; pendingPods: number; pricePerHour: number }[];
}

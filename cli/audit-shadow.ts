/**
 * `nodewright audit --shadow`: what a shadow deployment (deploy parameter `shadow=true`) would have done, per UTC day,
 * from its audit log. A decision repeats while the autoscaler that acts has not acted yet (a pending pod is planned
 * again every round, an empty node chosen again every pass): a launch counts once per set of pods, a disruption once
 * per set of candidates, within REPEAT_MS.
 */
import type { AuditRecord } from '../shared/core/ports';

const REPEAT_MS = 15 * 60_000;

export interface ShadowDay {
  day: string;
  /** NodeClaims it would have created for pods nothing else had placed yet. */
  launches: number;
  pods: number;
  /** The instance types it would have tried first, most frequent first. */
  instanceTypes: string[];
  /** Disruptions it would have started, by reason. */
  disruptions: Record<string, number>;
  nodesRemoved: number;
  /** What those disruptions would have saved, $/h at the time (the sum over the distinct commands). */
  savingsPerHour: number;
  /** The fleet that ran: the average of the day's samples ($/h of the NodePools' nodes, every 15 minutes), and the most nodes seen. */
  fleetPerHour?: number;
  fleetNodes?: number;
  /** Its own fleet for the same pods (what it would launch for them from nothing), the average of the day's samples. */
  ownPerHour?: number;
  ownNodes?: number;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const average = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10_000) / 10_000;

/** Whether a key was seen within REPEAT_MS; remembers it now. */
function repeats(seen: Map<string, number>, key: string, at: number): boolean {
  const last = seen.get(key);
  seen.set(key, at);
  return last !== undefined && at - last < REPEAT_MS;
}

export function shadowReport(records: readonly AuditRecord[]): ShadowDay[] {
  const days = new Map<string, ShadowDay & { podSet: Set<string>; typeCounts: Map<string, number>; samples: number[]; ownSamples: number[] }>();
  const day = (at: number) => {
    const d = dayOf(at);
    let v = days.get(d);
    if (!v)
      days.set(
        d,
        (v = {
          day: d,
          launches: 0,
          pods: 0,
          instanceTypes: [],
          disruptions: {},
          nodesRemoved: 0,
          savingsPerHour: 0,
          podSet: new Set(),
          typeCounts: new Map(),
          samples: [],
          ownSamples: [],
        }),
      );
    return v;
  };
  const seenPods = new Map<string, number>();
  const seenCommands = new Map<string, number>();
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    const d = (r.detail ?? {}) as { podKeys?: string[]; instanceTypes?: string[]; candidates?: unknown[]; method?: string };
    if (r.action === 'shadow-createNodeClaim') {
      const pods = d.podKeys ?? [];
      const fresh = pods.filter((p) => !repeats(seenPods, p, r.at));
      if (pods.length > 0 && fresh.length === 0) continue;
      const v = day(r.at);
      v.launches++;
      for (const p of fresh) v.podSet.add(p);
      const first = d.instanceTypes?.[0];
      if (first) v.typeCounts.set(first, (v.typeCounts.get(first) ?? 0) + 1);
    } else if (r.kind === 'disruption' && r.action === 'fleet') {
      const f = r.detail as { perHour?: number; nodes?: number; ownPerHour?: number; ownNodes?: number } | undefined;
      const v = day(r.at);
      v.samples.push(f?.perHour ?? 0);
      v.fleetNodes = Math.max(v.fleetNodes ?? 0, f?.nodes ?? 0);
      if (f?.ownPerHour !== undefined) {
        v.ownSamples.push(f.ownPerHour);
        v.ownNodes = Math.max(v.ownNodes ?? 0, f.ownNodes ?? 0);
      }
    } else if (r.kind === 'disruption' && r.action === 'started') {
      const candidates = (r.nodeClaims ?? []).slice().sort();
      if (repeats(seenCommands, candidates.join(','), r.at)) continue;
      const v = day(r.at);
      const reason = r.reason ?? d.method ?? 'unknown';
      v.disruptions[reason] = (v.disruptions[reason] ?? 0) + 1;
      v.nodesRemoved += candidates.length;
      v.savingsPerHour += r.savingsPerHour ?? 0;
    }
  }
  return [...days.values()]
    .sort((a, b) => a.day.localeCompare(b.day))
    .map(({ podSet, typeCounts, samples, ownSamples, ...v }) => ({
      ...v,
      ...(samples.length ? { fleetPerHour: average(samples) } : {}),
      ...(ownSamples.length ? { ownPerHour: average(ownSamples) } : {}),
      pods: podSet.size,
      instanceTypes: [...typeCounts]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([t]) => t)
        .slice(0, 3),
      savingsPerHour: Math.round(v.savingsPerHour * 10_000) / 10_000,
    }));
}

/** The report as a table, with what the counting means. */
export function renderShadowReport(days: readonly ShadowDay[]): string[] {
  if (days.length === 0) return ['no shadow decisions in the window (is the stack deployed with --param="shadow=true"?)'];
  const rows = days.map((d) => [
    d.day,
    String(d.launches),
    String(d.pods),
    d.instanceTypes.join(', ') || '-',
    Object.entries(d.disruptions)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ') || '-',
    String(d.nodesRemoved),
    `$${d.savingsPerHour.toFixed(4)}/h`,
    d.fleetPerHour !== undefined ? `$${d.fleetPerHour.toFixed(4)}/h (${d.fleetNodes ?? 0} nodes)` : '-',
    d.ownPerHour !== undefined ? `$${d.ownPerHour.toFixed(4)}/h (${d.ownNodes ?? 0} nodes)` : '-',
  ]);
  const head = ['DAY (UTC)', 'WOULD LAUNCH', 'FOR PODS', 'FIRST TYPES', 'WOULD DISRUPT', 'NODES', 'SAVING', 'FLEET THAT RAN', 'ITS FLEET'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(width[i]))
      .join('  ')
      .trimEnd();
  return [
    line(head),
    ...rows.map(line),
    '',
    `Counted once per set of pods (launches) and per set of candidates (disruptions) within ${REPEAT_MS / 60_000} minutes: a shadow`,
    'decision repeats until the autoscaler that acts has acted. SAVING is what those disruptions would have saved, $/h at the time;',
    "FLEET THAT RAN is the day's average $/h of the NodePools' nodes (sampled every 15 minutes) and the most nodes seen;",
    'ITS FLEET what nodewright would launch from nothing for the same pods at each sample (pods on other nodes left out).',
  ];
}

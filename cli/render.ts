/** Plain-text tables for people. */
import type { PlanJson } from '../shared/core/provisioning/plan-json';

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (c ?? '').padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const money = (n: number) => `$${n.toFixed(4)}`;

/** What NodeOverlays changed in the plan: each overlay price with the EC2 price it replaced, and added resources. */
function overlayNotes(p: PlanJson): string[] {
  const prices = new Map<string, string>();
  const capacity = new Map<string, Set<string>>();
  for (const c of p.nodeClaims) {
    const o = c.overlays;
    if (o?.price)
      prices.set(
        `${o.price.nodeOverlay}/${c.instanceTypes[0]}`,
        `${c.instanceTypes[0]} ${c.capacityType} at ${money(c.pricePerHour)}/h instead of EC2's ${money(o.price.ec2PricePerHour)}/h (NodeOverlay ${o.price.nodeOverlay})`,
      );
    for (const name of o?.capacity ?? []) capacity.set(name, (capacity.get(name) ?? new Set()).add(c.instanceTypes[0]));
  }
  const out = [...prices.values()].map((line) => `* ${line}`);
  for (const [name, types] of capacity) out.push(`Extended resources from NodeOverlay ${name} on ${[...types].join(', ')}.`);
  return out.length ? ['', ...out] : [];
}

export function renderPlanTable(p: PlanJson): string {
  const lines: string[] = [];
  if (p.nodeClaims.length > 0) {
    lines.push(
      table(
        ['NODEPOOL', 'INSTANCE TYPE', 'CAPACITY', 'ZONE', 'PODS', '$/H', 'ALSO FITS'],
        p.nodeClaims.map((c) => [
          c.nodePool,
          c.instanceTypes[0],
          c.capacityType,
          c.zone ?? '(any)',
          c.bufferPods?.length ? `${c.pods.length}+${c.bufferPods.length} buffer` : c.pods.length,
          `${money(c.pricePerHour)}${c.overlays?.price ? '*' : ''}`,
          c.instanceTypes.length > 1
            ? `${c.instanceTypes.slice(1, 4).join(', ')}${c.instanceTypes.length > 4 ? ` +${c.instanceTypes.length - 4} more` : ''}`
            : '-',
        ]),
      ),
    );
    lines.push(...overlayNotes(p));
    const chunks = p.nodeClaims.reduce((n, c) => n + (c.bufferPods?.length ?? 0), 0);
    if (chunks > 0) lines.push('', `${chunks} CapacityBuffer chunk(s) kept as headroom: the nodes planned for them are in the total.`);
  } else {
    lines.push('No new nodes needed.');
  }
  if (p.staticNodePools?.length) {
    lines.push('', 'Static NodePools (spec.replicas: nodes kept whatever the pods):');
    lines.push(
      table(
        ['NODEPOOL', 'REPLICAS', 'EXISTING', 'LAUNCH', 'REMOVE', 'INSTANCE TYPE', '$/H EACH'],
        p.staticNodePools.map((s) => [s.nodePool, s.replicas, s.existing, s.launch, s.remove, s.instanceTypes[0] ?? s.reason ?? '-', money(s.pricePerHour)]),
      ),
    );
  }
  const placed = p.existingNodes.filter((n) => n.pods.length > 0);
  if (placed.length > 0) {
    lines.push('', 'Placed on existing nodes:');
    lines.push(
      table(
        ['NODE', 'PODS'],
        placed.map((n) => [n.name, n.pods.join(', ')]),
      ),
    );
  }
  if (p.unschedulable.length > 0) {
    lines.push('', 'Pods that stay pending:');
    lines.push(
      table(
        ['POD', 'REASON'],
        p.unschedulable.map((u) => [u.pod, u.reason]),
      ),
    );
  }
  const s = p.summary;
  lines.push(
    '',
    `Total: ${s.pods} pending pod(s), ${s.scheduled} scheduled, ${s.unschedulable} pending; ${s.nodeClaims} new node(s) at ${money(s.pricePerHour)}/h (${money(s.pricePerHour * 730)}/month).`,
  );
  lines.push(...fleetLines(p), ...consolidationLines(p));
  if (p.optimization && p.optimization.greedyPricePerHour > p.optimization.pricePerHour + 1e-9) {
    lines.push(
      `Re-packed toward the cheapest fleet: ${money(p.optimization.pricePerHour)}/h instead of ${money(p.optimization.greedyPricePerHour)}/h for the Karpenter-style plan (--no-optimize prints that one).`,
    );
  }
  const launches = (p.staticNodePools ?? []).filter((x) => x.launch > 0);
  if (launches.length > 0) {
    const n = launches.reduce((a, x) => a + x.launch, 0);
    const cost = launches.reduce((a, x) => a + x.launch * x.pricePerHour, 0);
    lines.push(`Static NodePools: ${n} node(s) to launch at ${money(cost)}/h (not in the total above).`);
  }
  if (p.pricing?.onDemand === 'estimate')
    lines.push(`Prices are estimates for ${p.pricing.region}: on-demand at the us-east-1 list prices, spot at nodewright's estimate.`);
  return lines.join('\n');
}

/** The running fleet's $/h and what the new nodes add to it (when nodes run). */
function fleetLines(p: PlanJson): string[] {
  if (!p.fleet) return [];
  const s = p.summary;
  const after = p.fleet.pricePerHour + s.pricePerHour;
  const change =
    p.fleet.pricePerHour > 0
      ? ` (${after >= p.fleet.pricePerHour ? '+' : ''}${(((after - p.fleet.pricePerHour) / p.fleet.pricePerHour) * 100).toFixed(1)} %)`
      : '';
  const unpriced = p.fleet.unpriced ? `; ${p.fleet.unpriced} not priced (a type no NodePool offers)` : '';
  return [`Running fleet: ${p.fleet.nodes} node(s) at ${money(p.fleet.pricePerHour)}/h${unpriced}; with the new nodes ${money(after)}/h${change}.`];
}

/** What the disruption function would do now (when the input has nodes and NodeClaims). */
function consolidationLines(p: PlanJson): string[] {
  if (!p.consolidation) return [];
  const c = p.consolidation.command;
  const e = p.consolidation.eligible;
  return [
    c
      ? `Consolidation now: ${c.reason} (${c.method}) would ${c.action} ${c.nodes.join(', ')}${c.replacements.length ? ` with ${c.replacements.length} new node(s)` : ''}, saving ${money(c.savingsPerHour)}/h (explain --node NAME says why for any node).`
      : `Consolidation now: nothing to do (${e.empty} empty, ${e.drifted} drifted, ${e.underutilized} underutilized candidate(s); explain --node NAME says why).`,
    ...(p.consolidation.expiring.length > 0 ? [`Expired now (forceful, budgets do not apply): ${p.consolidation.expiring.join(', ')}.`] : []),
  ];
}

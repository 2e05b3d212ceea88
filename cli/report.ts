/** `--report report.html`: a self-contained page (no network): charts of nodes, pending pods and $/h, and the event table. */
import type { SimResultView } from './sim-result';

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
export const clock = (t: number) => `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(Math.floor(t % 60)).padStart(2, '0')}`;

/** A step chart as inline SVG. */
function chart(title: string, points: { t: number; v: number }[], color: string, format: (v: number) => string): string {
  const W = 640,
    H = 160,
    L = 48,
    B = 24,
    T = 20;
  if (points.length === 0) return `<figure><figcaption>${esc(title)}</figcaption><p>no data</p></figure>`;
  const tMax = Math.max(...points.map((p) => p.t), 1);
  const vMax = Math.max(...points.map((p) => p.v), 1);
  const x = (t: number) => L + (t / tMax) * (W - L - 8);
  const y = (v: number) => T + (1 - v / vMax) * (H - T - B);
  let d = `M${x(points[0].t).toFixed(1)},${y(points[0].v).toFixed(1)}`;
  for (let i = 1; i < points.length; i++) d += ` H${x(points[i].t).toFixed(1)} V${y(points[i].v).toFixed(1)}`;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * tMax);
  return `<figure><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${esc(title)}">
<line x1="${L}" y1="${H - B}" x2="${W}" y2="${H - B}" stroke="#999"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#999"/>
<text x="${L - 6}" y="${T + 4}" text-anchor="end" font-size="11">${esc(format(vMax))}</text><text x="${L - 6}" y="${H - B}" text-anchor="end" font-size="11">0</text>
${ticks.map((t) => `<text x="${x(t).toFixed(1)}" y="${H - 6}" text-anchor="middle" font-size="11">${clock(t)}</text>`).join('')}
<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/></svg></figure>`;
}

export function renderReport(r: SimResultView): string {
  const tl = r.timeline ?? [];
  const fields = (e: { fields?: Record<string, unknown> }) =>
    Object.entries(e.fields ?? {})
      .map(([k, v]) => `${esc(k)}=${esc(typeof v === 'object' ? JSON.stringify(v) : v)}`)
      .join(' ');
  const summary: [string, string][] = [
    ['nodes launched', String(r.nodes.length)],
    ['disruptions', String(r.disruptions.length)],
    ['pods', String(r.pods.total)],
    ['pending p50 / p99 / max (s)', `${r.pods.pendingSecondsP50} / ${r.pods.pendingSecondsP99} / ${r.pods.maxPendingSeconds}`],
    ['cost', `$${r.cost.total.toFixed(4)} total, $${r.cost.perHourAtEnd.toFixed(4)}/h at end`],
    ['violations (PDB, do-not-disrupt, pods lost)', `${r.violations.pdb}, ${r.violations.doNotDisrupt}, ${r.violations.podsLost}`],
    [
      'at the end',
      `${r.final.nodes} nodes, ${r.final.pendingPods} pending pods, ${r.final.orphanInstances} orphan instances, ${r.final.leakedNodeClaims} leaked NodeClaims`,
    ],
  ];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>nodewright simulation${r.scenario?.name ? ` — ${esc(r.scenario.name)}` : ''}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f4f4f4}figure{margin:1em 0}figcaption{font-weight:600}code{font-size:12px}.t{white-space:nowrap;font-variant-numeric:tabular-nums}</style></head><body>
<h1>nodewright simulation${r.scenario?.name ? `: ${esc(r.scenario.name)}` : ''}</h1>
<table>${summary.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
${chart(
  'Nodes',
  tl.map((p) => ({ t: p.t, v: p.nodes })),
  '#2b6cb0',
  (v) => String(Math.round(v)),
)}
${chart(
  'Pending pods',
  tl.map((p) => ({ t: p.t, v: p.pendingPods })),
  '#c05621',
  (v) => String(Math.round(v)),
)}
${chart(
  'Fleet price ($/h)',
  tl.map((p) => ({ t: p.t, v: p.pricePerHour })),
  '#2f855a',
  (v) => `$${v.toFixed(3)}`,
)}
<h2>Nodes</h2><table><tr><th>node</th><th>type</th><th>capacity</th><th>zone</th><th>pool</th><th>launched</th><th>ready</th><th>ended</th><th>reason</th></tr>
${r.nodes.map((n) => `<tr><td>${esc(n.name)}</td><td>${esc(n.instanceType)}</td><td>${esc(n.capacityType)}</td><td>${esc(n.zone)}</td><td>${esc(n.nodePool ?? '')}</td><td class="t">${clock(n.launchedAt)}</td><td class="t">${n.readyAt != null ? clock(n.readyAt) : '-'}</td><td class="t">${n.terminatedAt != null ? clock(n.terminatedAt) : '-'}</td><td>${esc(n.terminationReason ?? '')}</td></tr>`).join('\n')}</table>
<h2>Events</h2><table><tr><th>t</th><th>message</th><th>fields</th></tr>
${r.events.map((e) => `<tr><td class="t">${clock(e.t)}</td><td>${esc(e.message)}</td><td><code>${fields(e)}</code></td></tr>`).join('\n')}</table>
</body></html>
`;
}

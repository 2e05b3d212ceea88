/** Host port bookkeeping (a `protocol/ip/port` key per port; `*` for every address). */
import type { HostPort } from '../model/kube';

export function hostPortKeys(ports: readonly HostPort[]): string[] {
  return ports.map((p) => `${p.protocol}/${p.hostIP && p.hostIP !== '0.0.0.0' ? p.hostIP : '*'}/${p.port}`);
}

export function hostPortConflict(used: ReadonlySet<string>, ports: readonly HostPort[]): string | undefined {
  for (const p of ports) {
    const anyIp = `${p.protocol}/*/${p.port}`;
    const exact = `${p.protocol}/${p.hostIP && p.hostIP !== '0.0.0.0' ? p.hostIP : '*'}/${p.port}`;
    if (used.has(anyIp) || used.has(exact)) return `host port ${p.port}/${p.protocol} already in use`;
    if (exact === anyIp)
      for (const u of used) if (u.startsWith(`${p.protocol}/`) && u.endsWith(`/${p.port}`)) return `host port ${p.port}/${p.protocol} already in use`;
  }
  return undefined;
}

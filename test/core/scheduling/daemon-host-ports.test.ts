/**
 * DaemonSet host ports on new claims (Karpenter: each daemon-overhead group's HostPortUsage, checked in
 * filterInstanceTypesByRequirements): a pending pod cannot join a node whose DaemonSet pods already hold the
 * same hostPort / protocol / IP.
 */
import { describe, expect, it } from 'vitest';
import { daemonSet, existingNode, fakeInstanceTypes, nodePool, pod } from '../../fixtures/builders';
import { plan } from './helpers';

describe('DaemonSet host ports', () => {
  it("a pod asking for a DaemonSet's host port gets no node where that DaemonSet runs", () => {
    const result = plan({ pods: [pod({ name: 'p', hostPorts: [8080] })], daemonSets: [daemonSet('agent', { cpu: '100m', hostPorts: [8080] })] });
    expect(result.nodeClaims).toHaveLength(0);
    expect(result.unschedulable[0].reason).toMatch(/host port 8080\/TCP already in use by a DaemonSet/);
  });

  it('it goes to a pool where the DaemonSet does not run', () => {
    const pools = [nodePool({ name: 'a', weight: 10, labels: { agent: 'yes' } }), nodePool({ name: 'b', labels: { agent: 'no' } })];
    const ds = daemonSet('agent', { cpu: '100m', hostPorts: [8080], nodeSelector: { agent: 'yes' } });
    const result = plan({ pools, pods: [pod({ name: 'p', hostPorts: [8080] })], daemonSets: [ds] });
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims.map((c) => c.nodePool)).toEqual(['b']);
    const free = plan({ pools, pods: [pod({ name: 'q', hostPorts: [9090] })], daemonSets: [ds] });
    expect(free.nodeClaims.map((c) => c.nodePool)).toEqual(['a']);
  });

  it('another protocol or another port is no conflict', () => {
    const udp = pod({ name: 'udp', hostPorts: [8080] });
    udp.hostPorts = [{ port: 8080, protocol: 'UDP' }];
    const result = plan({ pods: [udp, pod({ name: 'other', hostPorts: [9090] })], daemonSets: [daemonSet('agent', { cpu: '100m', hostPorts: [8080] })] });
    expect(result.unschedulable).toEqual([]);
  });

  it("an in-flight claim reserves its DaemonSets' host ports before they run", () => {
    const [def] = fakeInstanceTypes();
    const inFlight = existingNode('claim-1', { type: def, zone: 'test-zone-1', pool: 'default', inFlight: true, initialized: false });
    const ds = daemonSet('agent', { cpu: '100m', hostPorts: [8080] });
    const result = plan({ pods: [pod({ name: 'p', hostPorts: [8080] })], existing: [inFlight], daemonSets: [ds] });
    expect(result.existingPlacements).toEqual([]);
  });
});

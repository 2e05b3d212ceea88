/**
 * Time of one disruption pass (computeDisruption) on a 2k-node cluster. Not part of `npm test`.
 *   mixed:  2000 nodes, 80 % well packed, 20 % underutilized → a consolidation command is found
 *   packed: 2000 nodes, all full → no command (the prefilter rejects every candidate without simulating)
 *   dense:  2000 nodes, all 95 % full: gaps too small for most pods, so candidates are simulated (the
 *           expensive case; the disruption function bounds it with the search timeouts)
 * Usage: node --import tsx bench/disruption.ts [mixed|packed ...]
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { computeDisruption, type DisruptionInput } from '../shared/core/disruption';
import type { Node, Pod } from '../shared/core/model/kube';
import type { NodeClaim } from '../shared/core/model/karpenter';
import { Finalizer, Label } from '../shared/core/model/labels';
import { parseResourceList } from '../shared/core/model/resources';
import { fakeTypes, rng, ZONES } from './karpenter-shape';
import { nodePoolFor } from './pools';
import { epochMs } from '../shared/core/time';

const NOW = epochMs(1_800_000_000_000);

export function cluster(nodesCount: number, underutilizedShare: number, fullShare = 0.85): DisruptionInput {
  const types = fakeTypes(64);
  const pool = nodePoolFor('default', [{ key: Label.capacityType, operator: 'In', values: ['on-demand'] }]);
  const rand = rng(42);
  const nodes: Node[] = [];
  const claims: NodeClaim[] = [];
  const pods: Pod[] = [];
  for (let i = 0; i < nodesCount; i++) {
    const it = types[rand() < 0.5 ? 7 : 15]; // 8 or 16 vCPU
    const zone = ZONES[i % ZONES.length];
    const name = `node-${String(i).padStart(4, '0')}`;
    const labels = {
      ...it.labels,
      [Label.zone]: zone,
      [Label.capacityType]: 'on-demand',
      [Label.hostname]: name,
      [Label.nodePool]: 'default',
      [Label.initialized]: 'true',
      [Label.registered]: 'true',
    };
    const providerID = `aws:///${zone}/i-${i.toString(16).padStart(17, '0')}`;
    nodes.push({
      name,
      labels,
      annotations: {},
      taints: [],
      capacity: it.capacity,
      allocatable: it.allocatable,
      providerID,
      unschedulable: false,
      ready: true,
      creationTimestamp: epochMs(NOW - 86_400_000),
      finalizers: [Finalizer.termination],
    });
    claims.push({
      name: `claim-${i}`,
      labels,
      annotations: {},
      nodePool: 'default',
      spec: {
        taints: [],
        startupTaints: [],
        requirements: [],
        resources: { requests: {} },
        nodeClassRef: pool.template.nodeClassRef,
        expireAfter: pool.template.expireAfter,
        terminationGracePeriod: null,
      },
      status: { nodeName: name, providerID, conditions: [{ type: 'Initialized', status: 'True', lastTransitionTime: epochMs(NOW - 86_000_000) }] },
      creationTimestamp: epochMs(NOW - 86_400_000),
      finalizers: [Finalizer.termination],
    });
    const target = (rand() < underutilizedShare ? 0.25 : fullShare) * it.capacity.cpu;
    for (let used = 0, j = 0; used + 250 <= target; j++) {
      const cpu = Math.min(250 + Math.floor(rand() * 7) * 250, Math.floor((target - used) / 250) * 250);
      used += cpu;
      const app = `app-${Math.floor(rand() * 200)}`;
      pods.push({
        uid: `${name}-${j}`,
        namespace: 'default',
        name: `${app}-${name}-${j}`,
        labels: { app },
        annotations: {},
        creationTimestamp: epochMs(NOW - 3_600_000),
        startTime: epochMs(NOW - 3_600_000),
        nodeName: name,
        phase: 'Running',
        ready: true,
        requests: parseResourceList({ cpu: `${cpu}m`, memory: `${cpu}Mi` }),
        nodeSelector: {},
        tolerations: [],
        topologySpreadConstraints: [],
        hostPorts: [],
        volumeClaims: [],
        owner: { kind: 'ReplicaSet', name: app },
        priority: 0,
        terminationGracePeriodSeconds: 30,
      });
    }
  }
  return {
    snapshot: {
      pods,
      nodes,
      nodeClaims: claims,
      nodePools: [pool],
      nodeClasses: [],
      pdbs: [],
      daemonSets: [],
      persistentVolumes: [],
      persistentVolumeClaims: [],
      storageClasses: [],
    },
    instanceTypes: { default: types },
    now: NOW,
  };
}

function run(label: string, input: DisruptionInput) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const d = computeDisruption(input);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cmd = d.command;
  return {
    scenario: label,
    nodes: input.snapshot.nodes.length,
    pods: input.snapshot.pods.length,
    ms: Math.round(ms),
    cpuMs: Math.round((c.user + c.system) / 1000),
    command: cmd ? `${cmd.method} ${cmd.action} ${cmd.candidates.length}→${cmd.replacements.length}` : 'none',
    savingsPerHour: cmd ? Number(cmd.savingsPerHour.toFixed(3)) : 0,
    auditRecords: d.audit.length,
  };
}

function main() {
  const which = process.argv.slice(2);
  const run2 = which.length ? which : ['mixed', 'packed', 'dense'];
  const rows = [];
  if (run2.includes('mixed')) rows.push(run('mixed (20% underutilized)', cluster(2000, 0.2)));
  if (run2.includes('packed')) rows.push(run('packed (no command)', cluster(2000, 0, 1)));
  if (run2.includes('dense')) rows.push(run('dense 95%', cluster(2000, 0, 0.95)));
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);
  console.table(rows);
}

if (import.meta.url === `file://${process.argv[1]}`) main();

/**
 * Shadow mode (deploy parameter `shadow=true`): beside a running Karpenter (here: its 2 nodes, and nobody launching
 * for the pods it has not placed yet), every function reads and decides as deployed, and nothing is acted on — no
 * instance launched, tagged or terminated, no execution started, no NodeClaim created, stamped or deleted, no node
 * tainted — while nodewright's own audit log says what it would have done.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoStateStore } from '../../shared/adapters/aws/state-store/dynamo';
import type { AuditRecord } from '../../shared/core/ports';
import { parseScenario, runScenario, type SimWorld } from '../../shared/sim';
import type { KubeObject } from '../../shared/sim/kube/types';
import { deployment, NODE_CLASS, nodePool, objects } from './fixtures/objects';
import { shadowReport } from '../../cli/audit-shadow';

const SCENARIO = `
name: shadow
seed: 5
duration: 25m
settings: {shadow: true}
objects: |
${objects(
  `${nodePool('default', ['{key: karpenter.k8s.aws/instance-category, operator: In, values: [m, c]}', '{key: kubernetes.io/arch, operator: In, values: [amd64]}'])}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}`,
  NODE_CLASS,
  deployment('web', 'nginx', '{cpu: "1", memory: 1Gi}', 10),
)}
fleet:
  - {nodePool: default, instanceType: m6i.xlarge, count: 2, launchedBy: karpenter}
events:
  - {at: 12m13s, scale: {deployment: default/web, replicas: 1}}
`;

const WRITES =
  /^(EC2Client\.(CreateFleet|RunInstances|TerminateInstances|CreateTags|CreateLaunchTemplate|DeleteLaunchTemplate)|IAMClient\.(Create|Add|Remove|Delete|Tag)|SFNClient\.StartExecution)/;

describe('shadow mode', () => {
  it('should decide as deployed and act on nothing: no launch, no execution, no Kubernetes write, every decision in the audit log', async () => {
    // Arrange
    let audit: AuditRecord[] = [];
    let claims: KubeObject[] = [];
    let nodes: KubeObject[] = [];
    let pools: KubeObject[] = [];
    // Act
    const run = await runScenario(parseScenario(SCENARIO, 'shadow.yaml'), {
      atEnd: async (world: SimWorld) => {
        const store = world.api.store;
        claims = store.scan(store.typeOf('karpenter.sh/v1', 'NodeClaim')).map((o) => structuredClone(o));
        nodes = store.scan(store.typeOf('v1', 'Node')).map((o) => structuredClone(o));
        pools = store.scan(store.typeOf('karpenter.sh/v1', 'NodePool')).map((o) => structuredClone(o));
        const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
        audit = await new DynamoStateStore({ client, tableName: String(process.env.STATE_TABLE_NAME), clock: world.clock }).auditLog({ limit: 500 });
      },
    });
    // Assert: nothing acted on
    const writes = Object.entries(run.awsCalls).flatMap(([fn, calls]) => calls.filter((c) => WRITES.test(c)).map((c) => `${fn} ${c}`));
    expect(writes).toEqual([]);
    expect(run.executions).toEqual([]);
    expect(run.nodes.map((n) => n.launchedAt)).toEqual([0, 0]);
    expect(run.final).toMatchObject({ nodes: 2, orphanInstances: 0, leakedNodeClaims: 0 });
    expect(claims).toHaveLength(2);
    // Karpenter's drift hashes stay Karpenter's: nodewright did not re-stamp (adopt) what it does not run.
    expect(claims.every((c) => (c.metadata.annotations as Record<string, string>)['karpenter.sh/nodepool-hash-version'] === 'v3')).toBe(true);
    expect(nodes.every((n) => !((n.spec as { taints?: { key: string }[] }).taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted'))).toBe(true);
    expect(pools.every((p) => !(p.status as { conditions?: unknown[] } | undefined)?.conditions)).toBe(true);
    // Assert: what it would have done
    const actions = new Set(audit.map((a) => a.action));
    expect(actions).toContain('shadow-createNodeClaim');
    expect(actions).toContain('shadow-start-launch');
    expect(audit.some((a) => a.action === 'shadow-start-disrupt' || a.action === 'shadow-start-terminate')).toBe(true);
    const launch = audit.find((a) => a.action === 'shadow-createNodeClaim')!;
    expect(launch.detail).toMatchObject({ nodePool: 'default', pods: expect.any(Number) });
    // `nodewright audit --shadow`: the repeated decisions counted once — the 4 pods nothing placed, on 2 new nodes;
    // the under-used node replaced and the emptied one deleted, and what that would have saved.
    const [day, ...more] = shadowReport(audit);
    expect(more).toEqual([]);
    expect(day).toMatchObject({ launches: 2, pods: 4, nodesRemoved: 2 });
    expect(day.disruptions).toEqual({ underutilized: 1, empty: 1 });
    expect(day.savingsPerHour).toBeGreaterThan(0.19);
    // The fleet that ran: Karpenter's two m6i.xlarge on-demand nodes, sampled every 15 minutes.
    expect(day).toMatchObject({ fleetPerHour: 0.384, fleetNodes: 2 });
    // Its own fleet for the same pods (10, then 1 after the scale-down), as it would launch it from nothing: cheaper.
    expect(day.ownNodes).toBeGreaterThan(0);
    expect(day.ownPerHour).toBeGreaterThan(0);
    expect(day.ownPerHour).toBeLessThan(day.fleetPerHour!);
  }, 300_000);
});

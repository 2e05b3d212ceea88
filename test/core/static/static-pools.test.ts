/**
 * Static NodePools (`spec.replicas`, Karpenter v1.8+), from Karpenter's semantics (designs/static-capacity.md,
 * pkg/controllers/static/{provisioning,deprovisioning}, disruption/staticdrift.go and the NodePool CRD rules):
 * validated like the CRD, never used for pending pods, kept at exactly `replicas` NodeClaims (up to
 * limits.nodes), scaled down unlaunched-then-empty-first through the normal termination, never consolidated,
 * drift-replaced one for one from the template.
 */
import { describe, expect, it } from 'vitest';
import { decideStaticPools, reconcileStaticPools } from '../../../shared/core/lifecycle/static-pools';
import { nodePoolFromKube } from '../../../shared/core/model/from-kube';
import { Annotation, Label, TaintKey } from '../../../shared/core/model/labels';
import { plannedClaimToNodeClaim } from '../../../shared/core/provisioning/from-snapshot';
import { staticNodeClaim } from '../../../shared/core/scheduling/static-claim';
import type { ClusterSnapshot } from '../../../shared/core/ports';
import { existingNode, fakeInstanceTypes, nodePool as schedPool, pod as schedPod } from '../../fixtures/builders';
import { plan } from '../scheduling/helpers';
import { fakes, instanceType, node, nodeClaim, nodePool, pod } from '../../fakes/lifecycle';
import { nodePoolJson, validationError } from '../model/helpers';
import { computeDisruption } from '../../../shared/core/disruption';
import { bound, c6g, cluster, input, managed, pool as dpool } from '../disruption/builders';
import { epochMs } from '../../../shared/core/time';

const NOW = epochMs(Date.UTC(2026, 0, 2));
const staticPool = (replicas: number, over: Parameters<typeof nodePool>[1] = {}) => nodePool('static', { replicas, ...over });
const snap = (o: Partial<ClusterSnapshot>): ClusterSnapshot => ({
  pods: [],
  nodes: [],
  nodeClaims: [],
  nodePools: [],
  nodeClasses: [],
  pdbs: [],
  daemonSets: [],
  persistentVolumes: [],
  persistentVolumeClaims: [],
  storageClasses: [],
  ...o,
});
const launched = (name: string, pool = 'static') => nodeClaim(name, { nodePool: pool, providerID: `aws:///z/i-${name}`, nodeName: `node-${name}` });
const nodeFor = (name: string, over: Parameters<typeof node>[1] = {}) => node(`node-${name}`, { providerID: `aws:///z/i-${name}`, taints: [], ...over });

describe('static NodePool validation (Karpenter CRD rules and messages)', () => {
  const staticJson = (edit: Parameters<typeof nodePoolJson>[0] = () => {}) =>
    nodePoolJson((np) => {
      np.spec.replicas = 3;
      edit(np);
    });
  it('accepts replicas with limits.nodes', () => {
    const p = nodePoolFromKube(
      staticJson((np) => {
        np.spec.limits = { nodes: 5 };
      }),
    );
    expect(p.replicas).toBe(3);
  });
  it('rejects limits other than nodes', () => {
    const err = validationError(() =>
      nodePoolFromKube(
        staticJson((np) => {
          np.spec.limits = { cpu: 100, nodes: 5 };
        }),
      ),
    );
    expect(err.path).toBe('spec.limits');
    expect(err.problem).toBe("only 'limits.nodes' is supported on static NodePools");
  });
  it('rejects weight', () => {
    const err = validationError(() =>
      nodePoolFromKube(
        staticJson((np) => {
          np.spec.weight = 10;
        }),
      ),
    );
    expect(err.problem).toBe("'weight' is not supported on static NodePools");
  });
  it('rejects negative replicas', () => {
    const err = validationError(() =>
      nodePoolFromKube(
        nodePoolJson((np) => {
          np.spec.replicas = -1;
        }),
      ),
    );
    expect(err.path).toBe('spec.replicas');
  });
});

describe('scheduling with static NodePools', () => {
  it('never launches a static pool for pending pods', () => {
    const result = plan({ pools: [{ ...schedPool({ name: 'static' }), replicas: 2 }], pods: [schedPod({ name: 'web', cpu: '1' })] });
    expect(result.nodeClaims).toEqual([]);
    expect(result.unschedulable[0].reason).toMatch(/only static NodePools/);
  });
  it("uses a dynamic pool beside it, and the static pool's nodes as existing capacity", () => {
    const [def] = fakeInstanceTypes();
    const pools = [{ ...schedPool({ name: 'static' }), replicas: 1 }, schedPool({ name: 'dynamic' })];
    const onStatic = existingNode('static-1', { type: def, zone: 'test-zone-1', pool: 'static' });
    const result = plan({ pools, existing: [onStatic], pods: [schedPod({ name: 'a', cpu: '1' }), schedPod({ name: 'b', cpu: '3500m' })] });
    expect(result.existingPlacements.map((e) => e.node)).toEqual(['static-1']);
    expect(result.nodeClaims.map((c) => c.nodePool)).toEqual(['dynamic']);
  });
  it('a static claim is the template alone: every compatible type, cheapest first', () => {
    const claim = staticNodeClaim(
      { ...schedPool({ name: 'static', requirements: [{ key: Label.arch, operator: 'In', values: ['amd64'] }] }), replicas: 1 },
      fakeInstanceTypes(),
      [],
    );
    if (typeof claim === 'string') throw new Error(claim);
    expect(claim.pods).toEqual([]);
    expect(claim.instanceTypes.map((t) => t.name)).toEqual(['small-instance-type', 'default-instance-type', 'single-pod-instance-type']);
  });
});

describe('decideStaticPools', () => {
  it('creates the missing replicas', () => {
    const d = decideStaticPools(snap({ nodePools: [staticPool(3)], nodeClaims: [launched('a')] }), NOW);
    expect(d).toEqual([expect.objectContaining({ pool: 'static', running: 1, create: 2, delete: [] })]);
  });
  it('never passes limits.nodes, counting claims still terminating', () => {
    const gone = { ...launched('b'), deletionTimestamp: epochMs(1000) };
    const d = decideStaticPools(snap({ nodePools: [staticPool(3, { limits: { nodes: 3 } })], nodeClaims: [launched('a'), gone] }), NOW);
    expect(d[0]).toMatchObject({ create: 1, limited: expect.stringMatching(/limits.nodes 3/) });
  });
  it('counts a node being disrupted as present (its replacement is on its way)', () => {
    const claims = [launched('a'), launched('b')];
    const nodes = [nodeFor('a', { taints: [{ key: TaintKey.disrupted, effect: 'NoSchedule' }] }), nodeFor('b')];
    expect(decideStaticPools(snap({ nodePools: [staticPool(2)], nodeClaims: claims, nodes }), NOW)).toEqual([]);
  });
  it('scales down unlaunched claims first, then empty nodes, then the lowest disruption cost, do-not-disrupt last', () => {
    const claims = ['busy', 'guarded', 'empty', 'light'].map((n) => launched(n));
    claims.push(nodeClaim('unlaunched', { nodePool: 'static' }));
    const nodes = ['busy', 'guarded', 'empty', 'light'].map((n) => nodeFor(n));
    const pods = [
      pod('b1', { nodeName: 'node-busy' }),
      pod('b2', { nodeName: 'node-busy' }),
      pod('l1', { nodeName: 'node-light' }),
      pod('g1', { nodeName: 'node-guarded', annotations: { [Annotation.doNotDisrupt]: 'true' } }),
      pod('ds', { nodeName: 'node-empty', owner: { kind: 'DaemonSet', name: 'agent' } }),
    ];
    const at = (replicas: number) => decideStaticPools(snap({ nodePools: [staticPool(replicas)], nodeClaims: claims, nodes, pods }), NOW)[0].delete;
    expect(at(4)).toEqual(['unlaunched']);
    expect(at(2)).toEqual(['unlaunched', 'empty', 'light']);
    expect(at(0)).toEqual(['unlaunched', 'empty', 'light', 'busy', 'guarded']);
  });
  it('leaves dynamic, deleting and not-ready pools alone', () => {
    const pools = [nodePool('dynamic'), staticPool(2, { deleting: true }), { ...staticPool(2), name: 'unready', ready: false }];
    expect(decideStaticPools(snap({ nodePools: pools }), NOW)).toEqual([]);
  });
});

describe('reconcileStaticPools', () => {
  it('creates and launches the missing claims from the template', async () => {
    const f = fakes();
    f.cluster.nodePools = [staticPool(2)];
    f.cloud.types = [instanceType('c5.large', 0.03), instanceType('m5.large', 0.04)];
    const r = await reconcileStaticPools(f, { plannedClaimToNodeClaim }, await f.cluster.snapshot(), async () => ({ static: f.cloud.types }));
    expect(r.created).toHaveLength(2);
    expect(f.workflows.started.map((s) => s.machine)).toEqual(['launch', 'launch']);
    const claim = (await f.cluster.snapshot()).nodeClaims[0];
    expect(claim.nodePool).toBe('static');
    expect(claim.spec.requirements.find((r) => r.key === Label.instanceType)?.values).toEqual(['c5.large', 'm5.large']);
  });
  it('deletes the surplus and starts its termination (drain honouring PDBs) at once', async () => {
    const f = fakes();
    f.cluster.nodePools = [staticPool(1)];
    for (const n of ['a', 'b']) {
      f.cluster.claims.set(n, launched(n));
      f.cluster.nodes.set(`node-${n}`, nodeFor(n));
    }
    f.cluster.pods = [pod('p', { nodeName: 'node-a' })];
    const r = await reconcileStaticPools(f, { plannedClaimToNodeClaim }, await f.cluster.snapshot(), async () => ({}));
    expect(r.deleted).toEqual(['b']);
    expect(f.workflows.started).toEqual([expect.objectContaining({ machine: 'terminate', input: expect.objectContaining({ nodeClaimName: 'b' }) })]);
  });
});

describe('disruption of static NodePools', () => {
  it("never consolidates a static pool's nodes, empty or not", () => {
    const p = { ...dpool({ budgets: [{ nodes: '100%' }] }), replicas: 2 };
    const a = managed('a', { pool: p, type: c6g.x2large });
    const b = managed('b', { pool: p, type: c6g.x2large });
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a, b], pods: [bound(a)] }), [c6g.large, c6g.xlarge, c6g.x2large]));
    expect(d.command).toBeUndefined();
    expect(d.audit.filter((r) => r.action === 'skipped').map((r) => r.detail.why)).toEqual([
      expect.stringMatching(/static NodePool/),
      expect.stringMatching(/static NodePool/),
    ]);
  });

  it('replaces a drifted static node one for one with a claim from the template, empty or not', () => {
    const p = { ...dpool({ budgets: [{ nodes: '1' }], consolidateAfter: null }), replicas: 1 };
    const a = managed('a', { pool: p, type: c6g.xlarge });
    p.template.labels = { ...p.template.labels, team: 'new' };
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [] }), [c6g.large, c6g.xlarge, c6g.x2large]));
    expect(d.command).toMatchObject({ method: 'drift', action: 'replace' });
    expect(d.command?.replacements).toHaveLength(1);
    expect(d.command?.replacements[0]).toMatchObject({ pods: [], labels: expect.objectContaining({ team: 'new' }) });
    expect(d.command?.replacements[0].instanceTypes.map((t) => t.name)).toEqual(['c6g.large', 'c6g.xlarge', 'c6g.2xlarge']);
  });

  it('does not replace a drifted static node when a replacement would pass limits.nodes', () => {
    const p = { ...dpool({ budgets: [{ nodes: '1' }], consolidateAfter: null }), replicas: 1, limits: { nodes: 1 } };
    const a = managed('a', { pool: p, type: c6g.xlarge });
    p.template.labels = { ...p.template.labels, team: 'new' };
    const d = computeDisruption(input(cluster({ pools: [p], nodes: [a], pods: [] }), [c6g.large, c6g.xlarge]));
    expect(d.command).toBeUndefined();
    expect(d.audit.some((r) => /limits.nodes 1/.test(String(r.detail.why)))).toBe(true);
  });
});

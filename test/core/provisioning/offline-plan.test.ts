/** planOffline: manifests in, plan out, with the bundled catalog or a replacement list of instance types. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { Label } from '../../../shared/core/model/labels';
import { parseManifestFiles, workloadPods } from '../../../shared/core/model/manifests';
import { planOffline } from '../../../shared/core/provisioning/offline-plan';
import { planToJson } from '../../../shared/core/provisioning/plan-json';
import { instanceType } from '../../fixtures/builders';

const catalog = loadCatalog();
const repo = (rel: string) => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const read = (path: string) => ({ file: path, text: readFileSync(path, 'utf8') });
const seed = () => parseManifestFiles([read(repo('examples/inflate.yaml'))]);
const fixture = (name: string) => read(repo(`test/fixtures/manifests/${name}`));

const NODE_YAML = `
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-1
  labels:
    kubernetes.io/hostname: ip-10-0-1-1
    topology.kubernetes.io/zone: us-east-1a
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
status:
  capacity: { cpu: "8", memory: 32Gi, pods: "58" }
  allocatable: { cpu: 7910m, memory: 30Gi, pods: "58" }
  conditions: [{ type: Ready, status: "True" }]
---
apiVersion: v1
kind: Pod
metadata:
  name: running
spec:
  nodeName: ip-10-0-1-1
  containers: [{ name: c, image: nginx, resources: { requests: { cpu: "7" } } }]
---
apiVersion: v1
kind: Pod
metadata:
  name: small
spec:
  containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m } } }]
`;

describe('planOffline', () => {
  it('should plan one on-demand c6a.2xlarge at $0.306/h for the seed walkthrough at 5 replicas', () => {
    // Act
    const result = planOffline(seed(), { region: 'us-east-1', catalog });
    const json = planToJson(result.plan, result.pending.length);
    // Assess
    expect(json.nodeClaims).toHaveLength(1);
    expect(json.nodeClaims[0]).toMatchObject({ nodePool: 'default', capacityType: 'on-demand', pricePerHour: 0.306 });
    expect(json.nodeClaims[0].instanceTypes[0]).toBe('c6a.2xlarge');
    expect(json.nodeClaims[0].instanceTypes.length).toBeLessThanOrEqual(60);
    expect(json.nodeClaims[0].pods).toEqual(['default/inflate-0', 'default/inflate-1', 'default/inflate-2', 'default/inflate-3', 'default/inflate-4']);
    expect(json.summary).toMatchObject({ pods: 5, scheduled: 5, nodeClaims: 1, pricePerHour: 0.306 });
    expect(result.warnings).toEqual([]);
  });

  it('should plan one c6a.4xlarge at $0.612/h for the seed walkthrough at 12 replicas', () => {
    // Prepare
    const set = seed();
    const inflate = set.deployments.find((d) => d.name === 'inflate')!;
    const scaled = { ...set, pods: workloadPods(inflate, 12) };
    // Act
    const json = planToJson(planOffline(scaled, { region: 'us-east-1', catalog }).plan, 12);
    // Assess
    expect(json.nodeClaims.map((c) => [c.instanceTypes[0], c.capacityType, c.pricePerHour])).toEqual([['c6a.4xlarge', 'on-demand', 0.612]]);
  });

  it('should offer only the given zones', () => {
    // Prepare
    const set = parseManifestFiles([fixture('zone-pinned.yaml')]);
    // Act
    const result = planOffline(set, { region: 'us-east-1', zones: ['us-east-1c'], catalog });
    // Assess: the pod pinned to us-east-1a cannot be planned; the other one gets types offered in us-east-1c only.
    expect(result.plan.unschedulable.map((u) => u.pod.name)).toEqual(['pinned']);
    const [claim] = result.plan.nodeClaims;
    expect(claim.pods.map((p) => p.name)).toEqual(['free']);
    expect(claim.instanceTypes.every((t) => t.offerings.every((o) => o.zone === 'us-east-1c'))).toBe(true);
    expect(result.warnings).toEqual(['nodepool "default": EC2NodeClass "default" is not in the input; using EC2NodeClass defaults (AL2023)']);
  });

  it('should use the given instance types instead of the catalog', () => {
    // Prepare
    const set = parseManifestFiles([fixture('four-pods.yaml')]);
    const only = [
      instanceType({ name: 'only.one', cpu: '8', memory: '16Gi', offerings: [{ zone: 'z-1', capacityType: 'on-demand', price: 0.42, available: true }] }),
    ];
    // Act
    const result = planOffline(set, { region: 'us-east-1', catalog, instanceTypes: () => only });
    // Assess
    expect(result.plan.nodeClaims.map((c) => c.instanceTypes.map((t) => t.name))).toEqual([['only.one']]);
    expect(result.plan.nodeClaims[0].price).toBe(0.42);
  });

  it('should treat pods with a nodeName as running there and fill that node first', () => {
    // Prepare
    const set = parseManifestFiles([{ file: 'cluster.yaml', text: NODE_YAML }, fixture('zone-pinned.yaml')]);
    // Act
    const result = planOffline(set, { region: 'us-east-1', catalog });
    // Assess
    expect(result.pending.map((p) => p.name).sort()).toEqual(['free', 'pinned', 'small']);
    const placed = result.plan.existingPlacements.flatMap((e) => e.pods.map((p) => p.name)).sort();
    expect(placed).toEqual(['small']); // 910m free: 500m fits, the two 1-CPU pods don't
    expect(result.plan.nodeClaims.flatMap((c) => c.pods.map((p) => p.name)).sort()).toEqual(['free', 'pinned']);
  });

  it('should not use a pool whose EC2NodeClass is missing and say why its pods stay pending', () => {
    // Prepare: the file defines EC2NodeClass "default"; this pool refers to "other".
    const text = readFileSync(repo('examples/inflate.yaml'), 'utf8').replace(/(nodeClassRef:[\s\S]*?name:) default/, '$1 other');
    const set = parseManifestFiles([{ file: 'inflate.yaml', text }]);
    // Act
    const result = planOffline(set, { region: 'us-east-1', catalog });
    // Assess
    expect(result.unusablePools).toEqual([{ nodePool: 'default', reason: 'EC2NodeClass "other" not found' }]);
    expect(result.plan.nodeClaims).toHaveLength(0);
    expect(result.plan.unschedulable).toHaveLength(5);
    expect(result.plan.unschedulable[0].reason).toMatch(/EC2NodeClass "other" not found/);
  });

  it('should plan a v1alpha5 Provisioner like its v1 NodePool', () => {
    // Prepare
    const set = parseManifestFiles([fixture('provisioner-v1alpha5.yaml')]);
    // Act
    const result = planOffline(set, { region: 'us-east-1', catalog });
    // Assess
    const [claim] = result.plan.nodeClaims;
    expect(result.plan.nodeClaims).toHaveLength(1);
    expect(claim.nodePool).toBe('legacy');
    expect(claim.capacityType).toBe('on-demand');
    expect(claim.pods).toHaveLength(3);
    expect(claim.instanceTypes.every((t) => ['c', 'm', 'r'].includes(t.labels[Label.instanceCategory]) && t.arch === 'amd64')).toBe(true);
  });
});

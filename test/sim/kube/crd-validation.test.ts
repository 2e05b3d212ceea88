/**
 * infra/crds carry Karpenter v1's defaults and CEL rules, and the fake API server enforces them as a real one
 * does (issue #13 item 3): Karpenter's getting-started objects and every shipped example are accepted (and
 * defaulted), and each invalid object is rejected with Karpenter's message at the field — nothing stored.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the cases edit free-form Kubernetes JSON in place */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createFakeKubeApi } from '../../../shared/sim/kube';
import { KubeApiStatusError } from '../../../shared/sim/kube/status';
import type { KubeObject } from '../../../shared/sim/kube/types';
import { T0 } from './fixtures';

const read = (path: string): KubeObject[] =>
  parseAllDocuments(readFileSync(new URL(path, import.meta.url), 'utf8'))
    .map((d) => d.toJS() as KubeObject)
    .filter((o) => o && typeof o === 'object');
const gettingStarted = read('../../fixtures/manifests/karpenter-getting-started.yaml');
const pool = () => structuredClone(gettingStarted.find((o) => o.kind === 'NodePool')!) as KubeObject & { spec: Record<string, any> };
const nodeClass = () => structuredClone(gettingStarted.find((o) => o.kind === 'EC2NodeClass')!) as KubeObject & { spec: Record<string, any> };

function setup() {
  const api = createFakeKubeApi({ clock: () => T0, token: 't' });
  const typeOf = (o: KubeObject) => api.store.typeOf(String(o.apiVersion), String(o.kind));
  const create = (o: KubeObject) => api.store.create(typeOf(o), undefined, o);
  const rejection = (act: () => unknown): string => {
    try {
      act();
    } catch (e) {
      expect(e).toBeInstanceOf(KubeApiStatusError);
      expect((e as KubeApiStatusError).code).toBe(422);
      return (e as KubeApiStatusError).message;
    }
    throw new Error('accepted');
  };
  return { api, typeOf, create, rejection };
}

describe('Karpenter CRD validation in the fake API server', () => {
  it("should accept Karpenter's getting-started NodePool and EC2NodeClass and default them as Karpenter's CRDs do", () => {
    // Prepare
    const { create } = setup();
    // Act
    const [p, c] = [create(pool()), create(nodeClass())];
    // Assess
    expect((p.spec as any).disruption).toEqual({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] });
    expect((p.spec as any).template.spec.expireAfter).toBe('720h');
    expect((c.spec as any).amiSelectorTerms).toEqual([{ alias: 'al2023@latest' }]);
  });

  it('should accept consolidationPolicy Balanced (Karpenter v1.14) and refuse a policy Karpenter does not know', () => {
    const { create, rejection } = setup();
    const p = pool();
    p.spec.disruption.consolidationPolicy = 'Balanced';
    expect((create(p).spec as any).disruption.consolidationPolicy).toBe('Balanced');
    const q = pool();
    q.metadata = { name: 'other' };
    q.spec.disruption.consolidationPolicy = 'Sometimes';
    expect(rejection(() => create(q))).toContain('consolidationPolicy');
  });

  it('should fill in the defaults of a minimal NodePool: consolidation policy and delay, a 10% budget, expireAfter 720h', () => {
    const { create } = setup();
    const p = pool();
    delete p.spec.disruption;
    delete p.spec.template.spec.expireAfter;
    const stored = create(p).spec as any;
    expect(stored.disruption).toEqual({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s', budgets: [{ nodes: '10%' }] });
    expect(stored.template.spec.expireAfter).toBe('720h');
  });

  it('should accept every NodePool and EC2NodeClass shipped in examples/', () => {
    let checked = 0;
    for (const file of ['../../../examples/inflate.yaml', '../../../examples/static-pool.yaml']) {
      const { create } = setup();
      for (const o of read(file).filter((x) => x.kind === 'NodePool' || x.kind === 'EC2NodeClass')) {
        expect(() => create(o), `${file}: ${o.kind} ${String(o.metadata?.name)}`).not.toThrow();
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  const invalidPools: [string, (p: ReturnType<typeof pool>) => void, string][] = [
    [
      'an In requirement without values',
      (p) => {
        p.spec.template.spec.requirements[0].values = [];
      },
      `spec.template.spec.requirements: Invalid value: "array": requirements with operator 'In' must have a value defined`,
    ],
    [
      'a Gt requirement with two values',
      (p) => {
        p.spec.template.spec.requirements[4].values = ['2', '3'];
      },
      `spec.template.spec.requirements: Invalid value: "array": requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value`,
    ],
    [
      'minValues above the number of values',
      (p) => {
        p.spec.template.spec.requirements[3].minValues = 4;
      },
      `spec.template.spec.requirements: Invalid value: "array": requirements with 'minValues' must have at least that many values specified in the 'values' field`,
    ],
    [
      'a requirement on a restricted karpenter.sh label',
      (p) => {
        p.spec.template.spec.requirements.push({ key: 'karpenter.sh/unregistered', operator: 'Exists' });
      },
      'spec.template.spec.requirements[5].key: Invalid value: "string": label domain "karpenter.sh" is restricted',
    ],
    [
      'a requirement on kubernetes.io/hostname',
      (p) => {
        p.spec.template.spec.requirements.push({ key: 'kubernetes.io/hostname', operator: 'Exists' });
      },
      'spec.template.spec.requirements[5].key: Invalid value: "string": label "kubernetes.io/hostname" is restricted',
    ],
    [
      'a template label karpenter.sh/nodepool',
      (p) => {
        p.spec.template.metadata = { labels: { 'karpenter.sh/nodepool': 'x' } };
      },
      'spec.template.metadata.labels: Invalid value: "object": label "karpenter.sh/nodepool" is restricted',
    ],
    [
      'an empty nodeClassRef name',
      (p) => {
        p.spec.template.spec.nodeClassRef.name = '';
      },
      'spec.template.spec.nodeClassRef.name: Invalid value: "string": name may not be empty',
    ],
    [
      'a budget schedule without a duration',
      (p) => {
        p.spec.disruption.budgets = [{ nodes: '0', schedule: '@daily' }];
      },
      `spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with 'duration'`,
    ],
    [
      'a weight on a static NodePool',
      (p) => {
        p.spec.replicas = 3;
        p.spec.weight = 10;
        delete p.spec.limits;
      },
      `spec: Invalid value: "object": 'weight' is not supported on static NodePools`,
    ],
    [
      'a cpu limit on a static NodePool',
      (p) => {
        p.spec.replicas = 3;
      },
      `spec: Invalid value: "object": only 'limits.nodes' is supported on static NodePools`,
    ],
    [
      'consolidateAfter in words',
      (p) => {
        p.spec.disruption.consolidateAfter = '5 minutes';
      },
      'spec.disruption.consolidateAfter: Invalid value: "5 minutes": spec.disruption.consolidateAfter in body should match \'^(([0-9]+(s|m|h))+|Never)$\'',
    ],
    [
      'a budget of 150%',
      (p) => {
        p.spec.disruption.budgets = [{ nodes: '150%' }];
      },
      'spec.disruption.budgets[0].nodes: Invalid value: "150%"',
    ],
  ];

  it.each(invalidPools)("should reject a NodePool with %s, with Karpenter's message at the field, and store nothing", (_what, mutate, message) => {
    const { api, typeOf, rejection } = setup();
    const p = pool();
    mutate(p);
    expect(rejection(() => api.store.create(typeOf(p), undefined, p))).toContain(`NodePool.karpenter.sh "default" is invalid: ${message}`);
    expect(api.store.list(typeOf(p)).items).toEqual([]);
  });

  it('should refuse updates Karpenter refuses: static ↔ dynamic, and a new nodeClassRef group — and accept a change of requirements', () => {
    const { api, typeOf, create, rejection } = setup();
    const stored = create(pool());
    const rt = typeOf(stored);
    const merge = (patch: unknown) => api.store.patch(rt, undefined, 'default', 'application/merge-patch+json', patch);
    expect(rejection(() => merge({ spec: { replicas: 2, limits: null } }))).toContain(
      'spec: Invalid value: "object": Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes',
    );
    expect(rejection(() => merge({ spec: { template: { spec: { nodeClassRef: { group: 'karpenter.example.com' } } } } }))).toContain(
      'spec.template.spec.nodeClassRef: Invalid value: "object": nodeClassRef.group is immutable',
    );
    expect(() => merge({ spec: { template: { spec: { requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] } } } })).not.toThrow();
  });

  const invalidClasses: [string, (c: ReturnType<typeof nodeClass>) => void, string][] = [
    [
      'an alias without a version',
      (c) => {
        c.spec.amiSelectorTerms = [{ alias: 'al2023' }];
      },
      `spec.amiSelectorTerms[0].alias: Invalid value: "string": 'alias' is improperly formatted, must match the format 'family@version'`,
    ],
    [
      'an unknown AMI family alias',
      (c) => {
        c.spec.amiSelectorTerms = [{ alias: 'ubuntu@latest' }];
      },
      `spec.amiSelectorTerms[0].alias: Invalid value: "string": family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'`,
    ],
    [
      'a pinned Windows alias',
      (c) => {
        c.spec.amiSelectorTerms = [{ alias: 'windows2022@v20240807' }];
      },
      `spec.amiSelectorTerms[0].alias: Invalid value: "string": windows families may only specify version 'latest'`,
    ],
    [
      'an alias beside another term',
      (c) => {
        c.spec.amiSelectorTerms.push({ id: 'ami-0123456789abcdef0' });
      },
      `spec.amiSelectorTerms: Invalid value: "array": 'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms`,
    ],
    [
      'AMI ids without an amiFamily',
      (c) => {
        c.spec.amiSelectorTerms = [{ id: 'ami-0123456789abcdef0' }];
      },
      'spec: Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias',
    ],
    [
      'an amiFamily that contradicts the alias',
      (c) => {
        c.spec.amiFamily = 'Bottlerocket';
      },
      `spec: Invalid value: "object": if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias`,
    ],
    [
      'both role and instanceProfile',
      (c) => {
        c.spec.instanceProfile = 'KarpenterNodeInstanceProfile';
      },
      `spec: Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`,
    ],
    [
      'neither role nor instanceProfile',
      (c) => {
        delete c.spec.role;
      },
      `spec: Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`,
    ],
    [
      'no subnet selector terms',
      (c) => {
        c.spec.subnetSelectorTerms = [];
      },
      'spec.subnetSelectorTerms: Invalid value: "array": subnetSelectorTerms cannot be empty',
    ],
    [
      'a subnet term with both an id and tags',
      (c) => {
        c.spec.subnetSelectorTerms = [{ id: 'subnet-0123abcd', tags: { a: 'b' } }];
      },
      `spec.subnetSelectorTerms: Invalid value: "array": 'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term`,
    ],
    [
      'an empty security group term',
      (c) => {
        c.spec.securityGroupSelectorTerms = [{}];
      },
      `spec.securityGroupSelectorTerms: Invalid value: "array": expected at least one, got none, ['tags', 'id', 'name']`,
    ],
    [
      'an empty tag value in a selector',
      (c) => {
        c.spec.subnetSelectorTerms = [{ tags: { 'karpenter.sh/discovery': '' } }];
      },
      `spec.subnetSelectorTerms[0].tags: Invalid value: "object": empty tag keys or values aren't supported`,
    ],
    [
      'a restricted instance tag',
      (c) => {
        c.spec.tags = { 'karpenter.sh/nodepool': 'x' };
      },
      'spec.tags: Invalid value: "object": tag contains a restricted tag matching karpenter.sh/nodepool',
    ],
    [
      'two root volumes',
      (c) => {
        c.spec.blockDeviceMappings = [
          { deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '20Gi' } },
          { deviceName: '/dev/xvdb', rootVolume: true, ebs: { volumeSize: '20Gi' } },
        ];
      },
      'spec.blockDeviceMappings: Invalid value: "array": must have only one blockDeviceMappings with rootVolume',
    ],
  ];

  it.each(invalidClasses)("should reject an EC2NodeClass with %s, with Karpenter's message at the field", (_what, mutate, message) => {
    const { api, typeOf, rejection } = setup();
    const c = nodeClass();
    mutate(c);
    expect(rejection(() => api.store.create(typeOf(c), undefined, c))).toContain(`EC2NodeClass.karpenter.k8s.aws "default" is invalid: ${message}`);
    expect(api.store.list(typeOf(c)).items).toEqual([]);
  });

  it("should keep a NodeClaim's spec immutable, as Karpenter's CRD does, while its metadata may change", () => {
    const { api, create, typeOf, rejection } = setup();
    const claim = create({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'default-abcde', labels: { 'karpenter.sh/nodepool': 'default' } },
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }],
      },
    } as KubeObject);
    const rt = typeOf(claim);
    expect(rejection(() => api.store.patch(rt, undefined, 'default-abcde', 'application/merge-patch+json', { spec: { requirements: [] } }))).toContain(
      'NodeClaim.karpenter.sh "default-abcde" is invalid: spec: Invalid value: "object": spec is immutable',
    );
    expect(() => api.store.patch(rt, undefined, 'default-abcde', 'application/merge-patch+json', { metadata: { annotations: { a: 'b' } } })).not.toThrow();
  });
});

/**
 * NodeOverlay (karpenter.sh/v1alpha1) validation, with the cases of kubernetes-sigs/karpenter
 * pkg/apis/v1alpha1/nodeoverlay_validation_test.go: each is checked where nodewright reads the object (the manifest
 * parser and the functions' mapping) and where a user applies it (the CRD's patterns and CEL rules in the fake API
 * server, as a real one enforces them).
 */
import { describe, expect, it } from 'vitest';
import { nodeOverlayFromKube } from '../../../shared/core/model/from-kube';
import { parseManifests } from '../../../shared/core/model/manifests';
import { createFakeKubeApi } from '../../../shared/sim/kube';
import { KubeApiStatusError } from '../../../shared/sim/kube/status';
import type { KubeObject } from '../../../shared/sim/kube/types';

type Spec = Record<string, unknown>;
const json = (spec: Spec, name = 'overlay') => ({
  apiVersion: 'karpenter.sh/v1alpha1',
  kind: 'NodeOverlay',
  metadata: { name },
  spec: { requirements: [], ...spec },
});

/** Whether the fake API server (the CRD) and nodewright's mapping accept it: [apiServer, nodewright]. */
function verdicts(spec: Spec): [boolean, boolean] {
  const api = createFakeKubeApi({ clock: () => 0, token: 't' });
  let server = true;
  try {
    api.store.create(api.store.typeOf('karpenter.sh/v1alpha1', 'NodeOverlay'), undefined, json(spec) as KubeObject);
  } catch (e) {
    if (!(e instanceof KubeApiStatusError) || e.code !== 422) throw e;
    server = false;
  }
  let ours = true;
  try {
    nodeOverlayFromKube(json(spec));
  } catch {
    ours = false;
  }
  return [server, ours];
}
const req = (key: string, operator: string, values?: string[]) => ({ requirements: [{ key, operator, ...(values ? { values } : {}) }] });

describe('NodeOverlay validation (Karpenter v1alpha1)', () => {
  it('should parse an overlay with its fields and defaults', () => {
    const set = parseManifests(
      [
        'apiVersion: karpenter.sh/v1alpha1',
        'kind: NodeOverlay',
        'metadata: {name: savings-plan}',
        'spec:',
        '  weight: 10',
        '  requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]',
        '  priceAdjustment: "-28%"',
        '  capacity: {hugepages-2Mi: 100Mi, smarter-devices/fuse: 1}',
      ].join('\n'),
      'overlay.yaml',
    );
    expect(set.nodeOverlays).toEqual([
      {
        name: 'savings-plan',
        weight: 10,
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
        priceAdjustment: '-28%',
        capacity: { 'hugepages-2Mi': 100 * 2 ** 20, 'smarter-devices/fuse': 1 },
      },
    ]);
    expect(nodeOverlayFromKube(json({})).weight).toBe(0);
  });

  it.each([
    ['In without values', req('example.com/a', 'In', [])],
    ['NotIn without values', req('example.com/a', 'NotIn', [])],
    ['an invalid key', req('test.com.com}', 'Exists')],
    ['an upper-case domain', req('Test.com/test', 'Exists')],
    ['two slashes', req('test/test/test', 'Exists')],
    ['an empty name', req('test/', 'Exists')],
    ['an empty prefix', req('/test', 'Exists')],
    ['the karpenter.sh domain', req('karpenter.sh/test', 'In', ['test'])],
    ['kubernetes.io/hostname', req('kubernetes.io/hostname', 'In', ['test'])],
    ['an unsupported operator', req('example.com/a', 'Within', ['1'])],
    ['Gt with a word', req('example.com/a', 'Gt', ['one'])],
    ['Lte with two values', req('example.com/a', 'Lte', ['1', '2'])],
    ['Gte with a negative value', req('example.com/a', 'Gte', ['-1'])],
    ['both price and priceAdjustment', { price: '0.432', priceAdjustment: '+10%' }],
    ['a signed price', { price: '+42' }],
    ['a price without a leading digit', { price: '.5' }],
    ['a price ending in a point', { price: '42.' }],
    ['a price with %', { price: '42%' }],
    ['a price in scientific notation', { price: '1e10' }],
    ['a price with a space', { price: ' 42' }],
    ['an unsigned priceAdjustment', { priceAdjustment: '1.3' }],
    ['an unsigned priceAdjustment percentage', { priceAdjustment: '1%' }],
    ['a priceAdjustment below -100%', { priceAdjustment: '-101.1%' }],
    ['a cpu capacity', { capacity: { cpu: '1' } }],
    ['a memory capacity', { capacity: { memory: '1Gi' } }],
    ['a pods capacity', { capacity: { pods: '10' } }],
    ['weight 0', { weight: 0 }],
    ['weight above 10000', { weight: 10001 }],
  ])('should refuse %s where it is applied and where it is read', (_what, spec) => {
    expect(verdicts(spec)).toEqual([false, false]);
  });

  it.each([
    ['the karpenter.sh/nodepool label', req('karpenter.sh/nodepool', 'In', ['default'])],
    ['the capacity-type label', req('karpenter.sh/capacity-type', 'In', ['spot'])],
    ['kubernetes.io domain labels', req('kubernetes.io/test', 'In', ['test'])],
    ['k8s.io domain labels', req('k8s.io/test', 'In', ['test'])],
    ['well-known labels', req('node.kubernetes.io/instance-type', 'In', ['m5.large'])],
    ['Gt, Lt, Gte and Lte', { requirements: ['Gt', 'Lt', 'Gte', 'Lte'].map((operator) => ({ key: 'example.com/n', operator, values: ['1'] })) }],
    ['empty requirements', {}],
    ['a price', { price: '5.00' }],
    ['an integer price', { price: '42' }],
    ['+1%', { priceAdjustment: '+1%' }],
    ['-100%', { priceAdjustment: '-100%' }],
    ['+298%', { priceAdjustment: '+298%' }],
    ['-43', { priceAdjustment: '-43' }],
    ['+34.43', { priceAdjustment: '+34.43' }],
    ['custom resources', { capacity: { 'smarter-devices/fuse': '1', 'hugepages-1Gi': '2Gi' } }],
    ['weight 10000', { weight: 10000 }],
  ])('should accept %s', (_what, spec) => {
    expect(verdicts(spec)).toEqual([true, true]);
  });

  it('should name the field and the rule in the error', () => {
    expect(() => nodeOverlayFromKube(json({ price: '1', priceAdjustment: '+1' }), { file: 'o.yaml', documentIndex: 0 })).toThrow(
      /cannot set both 'price' and 'priceAdjustment'/,
    );
    expect(() => nodeOverlayFromKube(json({ capacity: { memory: '1Gi' } }), { file: 'o.yaml', documentIndex: 0 })).toThrow(/spec\.capacity/);
    expect(() => parseManifests('apiVersion: karpenter.sh/v1\nkind: NodeOverlay\nmetadata: {name: x}\nspec: {requirements: []}', 'x.yaml')).toThrow(
      /unsupported apiVersion "karpenter.sh\/v1" for NodeOverlay/,
    );
  });
});

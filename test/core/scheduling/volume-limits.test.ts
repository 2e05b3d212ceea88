/**
 * CSI volume attach limits per instance type. kube-scheduler refuses a pod whose volumes would take a node
 * past the attach limit its CSI driver reports (CSINode); nodewright knows that limit before the node exists
 * (the EBS CSI driver's table and rules), so it does not plan a node the pods cannot all start on.
 */
import { describe, expect, it } from 'vitest';
import { findCatalogEntry } from '../../../shared/catalog';
import { buildInstanceTypes } from '../../../shared/core/instance-types/build';
import { EBS_CSI_DRIVER, ebsVolumeLimit } from '../../../shared/core/instance-types/volume-limits';
import type { PersistentVolumeClaim, StorageClass } from '../../../shared/core/model/kube';
import { existingNode, instanceType, pod } from '../../fixtures/builders';
import { plan } from './helpers';
import { epochMs } from '../../../shared/core/time';

const gp3: StorageClass = {
  name: 'gp3',
  provisioner: EBS_CSI_DRIVER,
  volumeBindingMode: 'WaitForFirstConsumer',
  isDefault: true,
  creationTimestamp: epochMs(0),
};
const claim = (name: string): PersistentVolumeClaim => ({ namespace: 'default', name, phase: 'Pending', storageClassName: 'gp3' });
const small = (limit: number) => ({ ...instanceType({ name: `two-volumes-${limit}`, cpu: '16', memory: '64Gi' }), volumeLimits: { [EBS_CSI_DRIVER]: limit } });

describe('EBS attach limits from the catalog', () => {
  const build = (name: string, blockDevices = 1) =>
    buildInstanceTypes([findCatalogEntry(name)!], {
      region: 'us-east-1',
      zones: ['us-east-1a'],
      nodeClass: { blockDeviceMappings: Array.from({ length: blockDevices }, () => ({ deviceName: '/dev/xvda' })) } as never,
    })[0];

  it('a Nitro type shares 27 attachments with its root volume and its second ENI', () => {
    expect(build('m5.xlarge').volumeLimits).toEqual({ [EBS_CSI_DRIVER]: 25 });
  });
  it('every extra block device mapping takes one more', () => {
    expect(build('m5.xlarge', 3).volumeLimits).toEqual({ [EBS_CSI_DRIVER]: 23 });
  });
  it('a Xen type has 39 dedicated attachments', () => {
    expect(build('c4.large').volumeLimits).toEqual({ [EBS_CSI_DRIVER]: 38 });
  });
  it('never reports less than one', () => {
    expect(ebsVolumeLimit({ max: 2, shared: true }, 4, 8)).toBe(1);
  });
});

describe('planning with attach limits', () => {
  it('splits pods across nodes when one node cannot attach all their volumes', () => {
    const pods = ['a', 'b', 'c', 'd', 'e'].map((n) => pod({ name: n, cpu: '100m', claims: [`data-${n}`] }));
    const result = plan({ pods, types: [small(2)], pvcs: pods.map((p) => claim(`data-${p.name}`)), storageClasses: [gp3] });
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims.map((c) => c.pods.length).sort()).toEqual([1, 2, 2]);
  });

  it('counts a claim two pods share once', () => {
    const pods = ['a', 'b', 'c'].map((n) => pod({ name: n, cpu: '100m', claims: ['shared', `own-${n}`] }));
    const pvcs = [claim('shared'), ...pods.map((p) => claim(`own-${p.name}`))];
    const result = plan({ pods, types: [small(3)], pvcs, storageClasses: [gp3] });
    expect(result.nodeClaims.map((c) => c.pods.length).sort()).toEqual([1, 2]);
  });

  it('pods without volumes of that driver are not limited', () => {
    const result = plan({ pods: ['a', 'b', 'c'].map((n) => pod({ name: n, cpu: '100m' })), types: [small(1)] });
    expect(result.nodeClaims).toHaveLength(1);
  });

  it('an existing node at its limit takes no more volumes', () => {
    const type = small(1);
    const busy = existingNode('busy', { type, zone: 'test-zone-1', pool: 'default', pods: [pod({ name: 'old', cpu: '100m', claims: ['old-data'] })] });
    busy.volumeLimits = type.volumeLimits;
    const result = plan({
      pods: [pod({ name: 'new', cpu: '100m', claims: ['new-data'] }), pod({ name: 'plain', cpu: '100m' })],
      existing: [busy],
      types: [type],
      pvcs: [claim('old-data'), claim('new-data')],
      storageClasses: [gp3],
    });
    expect(result.existingPlacements).toEqual([{ node: 'busy', pods: [expect.objectContaining({ name: 'plain' })] }]);
    expect(result.nodeClaims.flatMap((c) => c.pods.map((p) => p.name))).toEqual(['new']);
  });
});

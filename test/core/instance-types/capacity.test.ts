import { describe, expect, it } from 'vitest';
import { KubeletConfigurationInvalidError } from '../../../shared/core/instance-types/build';
import { GiB, MiB, build, nodeClass } from './helpers';

describe('instance type capacity and allocatable', () => {
  it('should reserve 80m cpu and 893Mi memory for kube on an m5.xlarge', () => {
    // Prepare / Act
    const it = build('m5.xlarge');

    // Assess
    expect(it.overhead.kubeReserved).toEqual({ cpu: 80, memory: 893 * MiB, 'ephemeral-storage': GiB });
    expect(it.capacity.cpu).toBe(4000);
    expect(it.capacity.memory).toBe((16384 - 1229) * MiB);
    expect(it.allocatable.cpu).toBe(3920);
    expect(it.allocatable.memory).toBe((16384 - 1229 - 893 - 100) * MiB);
    expect(it.allocatable['ephemeral-storage']).toBe(20 * GiB - GiB - 2 * GiB);
  });

  it('should give a t3.large 35 pods from its ENI limit', () => {
    // Prepare / Act
    const it = build('t3.large');

    // Assess
    expect(it.capacity.pods).toBe(35);
    expect(it.allocatable.pods).toBe(35);
  });

  it('should subtract 64MiB from arm64 memory before the VM overhead', () => {
    // Prepare / Act
    const graviton = build('m6g.xlarge');
    const intel = build('m5.xlarge');

    // Assess: 16384 − 64 = 16320, overhead ceil(16320 × 0.075) = 1224
    expect(graviton.capacity.memory).toBe((16320 - 1224) * MiB);
    expect(intel.capacity.memory).toBe((16384 - 1229) * MiB);
  });

  it('should use a larger VM overhead when configured', () => {
    // Prepare / Act
    const it = build('m5.xlarge', { vmMemoryOverheadPercent: 0.1 });

    // Assess
    expect(it.capacity.memory).toBe((16384 - 1639) * MiB);
  });

  it('should use kubelet maxPods but keep kube-reserved memory on the ENI-limited count for AL2023', () => {
    // Prepare / Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ kubelet: { maxPods: 110 } }) });

    // Assess
    expect(it.capacity.pods).toBe(110);
    expect(it.overhead.kubeReserved.memory).toBe((11 * 58 + 255) * MiB);
  });

  it('should base kube-reserved memory on maxPods for Bottlerocket', () => {
    // Prepare / Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ amiFamily: 'Bottlerocket', kubelet: { maxPods: 110 } }) });

    // Assess
    expect(it.overhead.kubeReserved.memory).toBe((11 * 110 + 255) * MiB);
  });

  it('should cap pods at podsPerCore × vCPU except on Bottlerocket', () => {
    // Prepare
    const kubelet = { podsPerCore: 5 };

    // Act
    const al2023 = build('m5.xlarge', { nodeClass: nodeClass({ kubelet }) });
    const bottlerocket = build('m5.xlarge', { nodeClass: nodeClass({ amiFamily: 'Bottlerocket', kubelet }) });
    const above = build('t3.large', { nodeClass: nodeClass({ kubelet: { podsPerCore: 100 } }) });

    // Assess
    expect(al2023.capacity.pods).toBe(20);
    expect(bottlerocket.capacity.pods).toBe(58);
    expect(above.capacity.pods).toBe(35);
  });

  it('should give Windows nodes 110 pods and the windows os', () => {
    // Prepare / Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ amiFamily: 'Windows2022' }) });

    // Assess
    expect(it.capacity.pods).toBe(110);
    expect(it.os).toBe('windows');
    expect(it.labels['kubernetes.io/os']).toBe('windows');
    expect(it.labels['node.kubernetes.io/windows-build']).toBe('10.0.20348');
    expect(it.capacity['ephemeral-storage']).toBe(50 * GiB);
  });

  it('should lower the ENI-limited pods when ENIs are reserved', () => {
    // Prepare / Act
    const it = build('t3.large', { reservedENIs: 1 });

    // Assess: (3 − 1) × (12 − 1) + 2
    expect(it.capacity.pods).toBe(24);
  });

  it('should compute the kube-reserved cpu tiers for a large type', () => {
    // Prepare / Act
    const it = build('m5.24xlarge');

    // Assess: 60 + 10 + 10 + (96000 − 4000) × 0.25 %
    expect(it.overhead.kubeReserved.cpu).toBe(310);
  });

  it('should take eviction percentages of capacity and treat 100% as disabled', () => {
    // Prepare
    const kubelet = { evictionHard: { 'memory.available': '5%', 'nodefs.available': '100%' } };

    // Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ kubelet }) });

    // Assess
    expect(it.overhead.evictionThreshold.memory).toBe(Math.ceil((((16384 - 1229) * MiB) / 100) * 5));
    expect(it.overhead.evictionThreshold['ephemeral-storage']).toBe(0);
    expect(it.allocatable['ephemeral-storage']).toBe(19 * GiB);
  });

  it('should use absolute eviction thresholds as given', () => {
    // Prepare / Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ kubelet: { evictionHard: { 'memory.available': '500Mi' } } }) });

    // Assess
    expect(it.overhead.evictionThreshold.memory).toBe(500 * MiB);
    expect(it.overhead.evictionThreshold['ephemeral-storage']).toBe(2 * GiB);
  });

  it('should reject an unparseable eviction threshold naming the node class and signal', () => {
    // Prepare
    const nc = nodeClass({ name: 'gpu', kubelet: { evictionHard: { 'memory.available': 'lots' } } });

    // Act / Assess
    expect(() => build('m5.xlarge', { nodeClass: nc })).toThrow(KubeletConfigurationInvalidError);
    expect(() => build('m5.xlarge', { nodeClass: nc })).toThrow(/EC2NodeClass gpu: kubelet\.evictionHard\.memory\.available/);
  });

  it('should let kubeReserved and systemReserved override the defaults', () => {
    // Prepare
    const kubelet = { kubeReserved: { cpu: 200 }, systemReserved: { cpu: 100, memory: 100 * MiB } };

    // Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ kubelet }) });

    // Assess
    expect(it.overhead.kubeReserved).toEqual({ cpu: 200, memory: 893 * MiB, 'ephemeral-storage': GiB });
    expect(it.allocatable.cpu).toBe(4000 - 200 - 100);
    expect(it.allocatable.memory).toBe((16384 - 1229 - 893 - 100 - 100) * MiB);
  });

  it('should size ephemeral storage from the root volume mapping', () => {
    // Prepare
    const blockDeviceMappings = [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: 100 * GiB } }];

    // Act
    const it = build('m5.xlarge', { nodeClass: nodeClass({ blockDeviceMappings }) });

    // Assess
    expect(it.capacity['ephemeral-storage']).toBe(100 * GiB);
    expect(it.overhead.evictionThreshold['ephemeral-storage']).toBe(10 * GiB);
  });

  it('should use the instance store under instanceStorePolicy RAID0 and the volume otherwise', () => {
    // Prepare
    const nc = nodeClass({ instanceStorePolicy: 'RAID0' });

    // Act
    const nvme = build('m5d.xlarge', { nodeClass: nc });
    const noStore = build('m5.xlarge', { nodeClass: nc });

    // Assess
    expect(nvme.capacity['ephemeral-storage']).toBe(150e9);
    expect(noStore.capacity['ephemeral-storage']).toBe(20 * GiB);
  });
});

import { describe, expect, it } from 'vitest';
import { Label } from '../../../shared/core/model/labels';
import { build } from './helpers';

describe('instance type labels and accelerator resources', () => {
  it('should label a GPU type and expose its GPUs as nvidia.com/gpu', () => {
    // Prepare / Act
    const it = build('p3.8xlarge');

    // Assess
    expect(it.capacity['nvidia.com/gpu']).toBe(4);
    expect(it.allocatable['nvidia.com/gpu']).toBe(4);
    expect(it.labels[Label.instanceGpuCount]).toBe('4');
    expect(it.labels[Label.instanceGpuManufacturer]).toBe('nvidia');
    expect(it.labels[Label.instanceGpuName]).toBe('v100');
    expect(it.labels[Label.instanceGpuMemory]).toBe('16384');
    expect(it.exotic).toBe(true);
  });

  it('should expose AMD GPUs as amd.com/gpu', () => {
    // Prepare / Act
    const it = build('g4ad.xlarge');

    // Assess
    expect(it.capacity['amd.com/gpu']).toBe(1);
    expect(it.capacity['nvidia.com/gpu']).toBeUndefined();
    expect(it.labels[Label.instanceGpuManufacturer]).toBe('amd');
  });

  it('should expose Inferentia and Trainium as aws.amazon.com/neuron with accelerator labels', () => {
    // Prepare / Act
    const inf = build('inf2.xlarge');
    const trn = build('trn1.32xlarge');

    // Assess
    expect(inf.capacity['aws.amazon.com/neuron']).toBe(1);
    expect(inf.labels[Label.instanceAcceleratorName]).toBe('inferentia2');
    expect(inf.labels[Label.instanceAcceleratorManufacturer]).toBe('aws');
    expect(inf.labels[Label.instanceAcceleratorCount]).toBe('1');
    expect(inf.labels[Label.instanceGpuCount]).toBeUndefined();
    expect(trn.capacity['aws.amazon.com/neuron']).toBe(16);
    expect(inf.exotic && trn.exotic).toBe(true);
  });

  it('should expose Habana Gaudi as habana.ai/gaudi', () => {
    // Prepare / Act
    const it = build('dl1.24xlarge');

    // Assess
    expect(it.capacity['habana.ai/gaudi']).toBe(8);
  });

  it('should omit GPU, accelerator and NVMe labels on a plain type so they count as DoesNotExist', () => {
    // Prepare / Act
    const it = build('m5.xlarge');

    // Assess
    expect(it.labels).toEqual({
      [Label.instanceType]: 'm5.xlarge',
      [Label.arch]: 'amd64',
      [Label.os]: 'linux',
      [Label.region]: 'us-east-1',
      [Label.instanceCategory]: 'm',
      [Label.instanceFamily]: 'm5',
      [Label.instanceGeneration]: '5',
      [Label.instanceSize]: 'xlarge',
      [Label.instanceCpu]: '4',
      [Label.instanceMemory]: '16384',
      [Label.instanceHypervisor]: 'nitro',
      [Label.instanceNetworkBandwidth]: '1250',
    });
    expect(it.exotic).toBe(false);
    expect(Object.keys(it.capacity).some((k) => k.includes('gpu') || k.includes('neuron'))).toBe(false);
  });

  it('should label local NVMe and arm64, and omit the hypervisor on bare metal', () => {
    // Prepare / Act
    const nvme = build('m6gd.xlarge');
    const metal = build('m5.metal');

    // Assess
    expect(nvme.labels[Label.instanceLocalNvme]).toBe('237');
    expect(nvme.labels[Label.arch]).toBe('arm64');
    expect(nvme.arch).toBe('arm64');
    expect(metal.labels[Label.instanceHypervisor]).toBeUndefined();
    expect(metal.exotic).toBe(true);
  });
});

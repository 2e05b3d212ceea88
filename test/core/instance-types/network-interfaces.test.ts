import { describe, expect, it } from 'vitest';
import type { InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { toCatalogEntry } from '../../../shared/adapters/aws/ec2/catalog-mapping';
import { buildInstanceTypes } from '../../../shared/core/instance-types/build';
import { nodeClassFromKube } from '../../../shared/core/model/from-kube';
import type { NetworkInterface } from '../../../shared/core/model/karpenter';
import { nodeClassJson, validationError } from '../model/helpers';
import { catalogEntry, nodeClass, ZONES } from './helpers';

/** p5.48xlarge as DescribeInstanceTypes answers it: 32 network cards of 2 interfaces, 32 EFA interfaces. */
const p5: InstanceTypeInfo = {
  InstanceType: 'p5.48xlarge',
  VCpuInfo: { DefaultVCpus: 192 },
  MemoryInfo: { SizeInMiB: 2097152 },
  Hypervisor: 'nitro',
  ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
  GpuInfo: { Gpus: [{ Count: 8, Name: 'H100', Manufacturer: 'NVIDIA', MemoryInfo: { SizeInMiB: 81920 } }] },
  NetworkInfo: {
    MaximumNetworkInterfaces: 64,
    Ipv4AddressesPerInterface: 50,
    DefaultNetworkCardIndex: 0,
    EnaSupport: 'required',
    NetworkCards: Array.from({ length: 32 }, (_, i) => ({ NetworkCardIndex: i, MaximumNetworkInterfaces: 2 })),
    EfaSupported: true,
    EfaInfo: { MaximumEfaInterfaces: 32 },
  },
};

const primary: NetworkInterface = { networkCardIndex: 0, deviceIndex: 0, interfaceType: 'interface' };
const efaOnly = (card: number, device = card === 0 ? 1 : 0): NetworkInterface => ({ networkCardIndex: card, deviceIndex: device, interfaceType: 'efa-only' });

function buildWith(networkInterfaces: NetworkInterface[] | undefined, names: string[] = []) {
  const live = toCatalogEntry(p5, catalogEntry('p5.48xlarge'))!;
  return buildInstanceTypes([live, ...names.map(catalogEntry)], { region: 'us-east-1', zones: ZONES, nodeClass: nodeClass({ networkInterfaces }) });
}

describe('EC2NodeClass networkInterfaces', () => {
  it('should count the efa-only interfaces as the EFA devices, and leave the ENIs they take on card 0 out of the pods', () => {
    // Act
    const [plain] = buildWith(undefined);
    const [configured] = buildWith([primary, efaOnly(0), efaOnly(1), efaOnly(2)]);

    // Assess: the type's 32 EFA interfaces without the field, the class's 3 with it; card 0's efa-only ENI carries no pod IPs.
    expect(plain.capacity['vpc.amazonaws.com/efa']).toBe(32);
    expect(configured.capacity['vpc.amazonaws.com/efa']).toBe(3);
    expect(plain.capacity.pods).toBe(2 * 49 + 2);
    expect(configured.capacity.pods).toBe(1 * 49 + 2);
  });

  it('should offer only the types that have the configured network cards, device indexes and EFA interfaces', () => {
    // Prepare: an incompatible type is built with no available offering (nothing to launch).
    const offered = (nics: NetworkInterface[] | undefined) =>
      buildWith(nics, ['m5.large'])
        .filter((t) => t.offerings.some((o) => o.available))
        .map((t) => t.name);

    // Act: m5.large has one card of 3 interfaces and no EFA; p5 has 32 cards of 2.
    const efa = offered([primary, efaOnly(0)]);
    const card31 = offered([primary, { networkCardIndex: 31, deviceIndex: 0, interfaceType: 'interface' }]);
    const device2 = offered([primary, { networkCardIndex: 0, deviceIndex: 2, interfaceType: 'interface' }]);
    const none = offered(undefined);

    // Assess
    expect(efa).toEqual(['p5.48xlarge']);
    expect(card31).toEqual(['p5.48xlarge']);
    expect(device2).toEqual(['m5.large']);
    expect(none).toEqual(['p5.48xlarge', 'm5.large']);
  });

  it('should refuse what the CRD refuses, naming the field', () => {
    const cases: [string, unknown, RegExp][] = [
      ['no primary interface', [efaOnly(0)], /must include a primary interface with interfaceType='interface'/],
      ['a duplicate card and device', [primary, { ...primary }], /must not have duplicate networkCardIndex and deviceIndex pairs/],
      ['two efa-only on one card', [primary, efaOnly(1, 0), efaOnly(1, 1)], /at most one efa device per network card/],
      ['an unknown type', [primary, { networkCardIndex: 1, deviceIndex: 0, interfaceType: 'efa' }], /must be one of "interface", "efa-only"/],
      ['a negative index', [{ ...primary, deviceIndex: -1 }], /deviceIndex must be at least 0/],
    ];
    for (const [what, value, problem] of cases) {
      // Act
      const err = validationError(() => nodeClassFromKube(nodeClassJson((s) => (s.networkInterfaces = value))));

      // Assess
      expect(err.path, what).toMatch(/^spec\.networkInterfaces/);
      expect(err.problem, what).toMatch(problem);
    }
  });

  it('should drift nodes when the interfaces change, and not when only their order does', () => {
    // Prepare
    const parse = (nics: NetworkInterface[] | undefined) => nodeClassFromKube(nodeClassJson((s) => (s.networkInterfaces = nics)));

    // Act
    const none = parse(undefined);
    const one = parse([primary, efaOnly(1)]);
    const reordered = parse([efaOnly(1), primary]);
    const two = parse([primary, efaOnly(1), efaOnly(2)]);

    // Assess
    expect(one.networkInterfaces).toEqual([primary, efaOnly(1)]);
    expect(one.hash).not.toBe(none.hash);
    expect(reordered.hash).toBe(one.hash);
    expect(two.hash).not.toBe(one.hash);
  });
});

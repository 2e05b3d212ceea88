import { describe, expect, it } from 'vitest';
import { parseInstanceTypesFile } from '../../shared/core/instance-types/custom';
import { parseInterruptionMessage } from '../../shared/core/interruption';
import { parseDisruptInput, parseLaunchInput, parseTerminateInput } from '../../shared/core/lifecycle';
import { parseManifests } from '../../shared/core/model/manifests';
import { eventFixture } from '../fixtures/events';

/**
 * The schemas run on zod/mini, which has no messages of its own ("Invalid input" for everything): shared/core/zod.ts
 * configures zod's English locale. These are the messages users read, word for word as classic zod wrote them.
 */
const NODE_CLASS = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
`;

function messageOf(act: () => unknown): string {
  try {
    act();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe("zod's English messages", () => {
  it.each([
    [
      () => parseLaunchInput({ nodeClaimName: '' }),
      'launch execution input {"nodeClaimName"}: nodeClaimName: Too small: expected string to have >=1 characters; nodeClaimName: must be a lowercase RFC 1123 name',
    ],
    [
      () => parseLaunchInput({ nodePool: 'default', count: 1.5 }),
      'launch execution input {"nodePool", "count"}: count: Invalid input: expected int, received number',
    ],
    [() => parseLaunchInput({ nodePool: 'default', count: 101 }), 'launch execution input {"nodePool", "count"}: count: Too big: expected number to be <=100'],
    [() => parseTerminateInput({ nodeName: 'n', extra: 1 }), 'terminate execution input {"nodeName"}: (input): Unrecognized key: "extra"'],
    [
      () => parseDisruptInput({ reason: 'Empty', candidates: [] }),
      'disrupt execution input {"reason", "candidates", "replacements"}: candidates: Too small: expected array to have >=1 items',
    ],
    [
      () => parseDisruptInput({ reason: 'Empty', candidates: [{ nodeClaimName: 'a' }], interruption: { kind: 'Meteor', drainBy: 1 } }),
      'disrupt execution input {"reason", "candidates", "replacements"}: interruption.kind: Invalid option: expected one of "SpotInterruption"|"ScheduledChange"|"InstanceStateChange"|"CapacityReservationInterruption"|"RebalanceRecommendation"',
    ],
  ])('should word state-machine input problems as zod does (%#)', (act, message) => {
    // Act / Assess
    expect(messageOf(act)).toBe(message);
  });

  it('should word an interruption event problem as zod does', () => {
    // Prepare
    const event = eventFixture('spot-interruption-warning');
    event.detail['instance-id'] = null;

    // Act
    const message = messageOf(() => parseInterruptionMessage(JSON.stringify(event)));

    // Assess
    expect(message).toBe(
      'interruption message 1e5527d7-bb36-4607-3370-4164db56a40e: invalid spot interruption detail: instance-id: Invalid input: expected string, received null',
    );
  });

  it('should word an instance types file problem as zod does', () => {
    // Prepare
    const file = [{ name: 'big.box', capacity: { cpu: '4' }, offerings: [{ zone: 'us-east-1a', capacityType: 'spot', price: -1 }] }];

    // Act
    const message = messageOf(() => parseInstanceTypesFile(file, { region: 'us-east-1', zones: ['us-east-1a'] }));

    // Assess
    expect(message).toBe('instance types file: entry [0] (big.box): offerings.0.price: Too small: expected number to be >=0');
  });

  it('should word a manifest problem as zod does, naming the field', () => {
    // Prepare
    const text = `${NODE_CLASS}  kubelet: {imageGCLowThresholdPercent: -1}\n`;

    // Act
    const message = messageOf(() => parseManifests(text, 'class.yaml'));

    // Assess
    expect(message).toBe('class.yaml: document 1: spec.kubelet.imageGCLowThresholdPercent: Too small: expected number to be >=0');
  });
});

import { describe, expect, it } from 'vitest';
import { parseDisruptInput, parseLaunchInput, parseTerminateInput } from '../../../shared/core/lifecycle';

describe('manual execution input', () => {
  it('should accept the documented launch inputs', () => {
    // Prepare
    const inputs = [{ nodeClaimName: 'default-abcde' }, { nodePool: 'default', count: 3 }, { reconcile: true }];

    // Act
    const parsed = inputs.map(parseLaunchInput);

    // Assess
    expect(parsed.map((p) => p.kind)).toEqual(['claim', 'pool', 'reconcile']);
  });

  it('should accept the documented terminate inputs with an optional reason', () => {
    // Prepare
    const inputs = [
      { nodeName: 'ip-10-0-1-2.eu-west-1.compute.internal' },
      { instanceId: 'i-0123456789abcdef0', reason: 'SpotInterrupted' },
      { nodeClaimName: 'default-abcde' },
    ];

    // Act
    const parsed = inputs.map(parseTerminateInput);

    // Assess
    expect(parsed.map((p) => p.kind)).toEqual(['node', 'instance', 'claim']);
    expect(parsed[1].reason).toBe('SpotInterrupted');
  });

  it.each([
    [() => parseLaunchInput({ nodePool: 'default', count: 1.5 }), 'launch execution input {"nodePool", "count"}: count: '],
    [() => parseLaunchInput({ nodePool: 'default', count: 2, extra: true }), 'extra'],
    [() => parseTerminateInput({ instanceId: 'i-xyz' }), 'instanceId: must look like i-0123456789abcdef0'],
    [() => parseTerminateInput(null), 'terminate execution input must be a JSON object'],
    [() => parseDisruptInput({ reason: 'Empty', candidates: [{ nodeClaimName: 'A' }] }), 'candidates.0.nodeClaimName'],
  ])('should name the machine and the field in the error (%#)', (act, fragment) => {
    // Prepare (inputs above)

    // Act
    const run = () => act();

    // Assess
    expect(run).toThrowError(expect.objectContaining({ name: 'ExecutionInputInvalidError', message: expect.stringContaining(fragment) }));
  });
});

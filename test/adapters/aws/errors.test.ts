import { describe, expect, it } from 'vitest';
import { mapAwsError } from '../../../shared/adapters/aws/errors';

const awsError = (name: string) => Object.assign(new Error(`${name} happened`), { name, $metadata: {} });

describe('mapAwsError', () => {
  it.each([
    ['InsufficientInstanceCapacity', 'InsufficientCapacityError'],
    ['MaxSpotInstanceCountExceeded', 'InsufficientCapacityError'],
    ['VcpuLimitExceeded', 'InsufficientCapacityError'],
    ['UnfulfillableCapacity', 'InsufficientCapacityError'],
    ['InsufficientFreeAddressesInSubnet', 'InsufficientCapacityError'],
    ['RequestLimitExceeded', 'CloudProviderThrottledError'],
    ['Throttling', 'CloudProviderThrottledError'],
    ['UnauthorizedOperation', 'CloudProviderUnauthorizedError'],
    ['AccessDeniedException', 'CloudProviderUnauthorizedError'],
    ['InvalidInstanceID.NotFound', 'NodeClaimNotFoundError'],
  ])('should map %s to %s, keeping the cause and naming the operation', (code, expected) => {
    // Prepare
    const original = awsError(code);
    // Act
    const mapped = mapAwsError(original, 'TerminateInstances i-0abc') as Error;
    // Assess
    expect(mapped.name).toBe(expected);
    expect(mapped.message).toBe(`TerminateInstances i-0abc: ${code}: ${code} happened`);
    expect(mapped.cause).toBe(original);
  });

  it('should leave an error with no core meaning unchanged', () => {
    // Prepare
    const original = awsError('InvalidParameterValue');
    // Act
    const mapped = mapAwsError(original, 'CreateFleet');
    // Assess
    expect(mapped).toBe(original);
  });
});

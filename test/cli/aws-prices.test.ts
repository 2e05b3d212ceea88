import { DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { awsPlanInputs } from '../../cli/aws-prices';

describe('instance types and prices from AWS for a live plan', () => {
  const ec2 = mockClient(EC2Client);
  afterEach(() => ec2.reset());

  it('should fall back to the bundled catalog, saying why, when AWS does not answer (no credentials, no access)', async () => {
    // Prepare
    const denied = Object.assign(new Error('User is not authorized to perform: ec2:DescribeInstanceTypes'), { name: 'UnauthorizedOperation' });
    ec2.on(DescribeInstanceTypesCommand).rejects(denied);
    const lines: string[] = [];
    // Act
    const inputs = await awsPlanInputs('eu-west-1', (s) => lines.push(s));
    // Assess
    expect(inputs).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^instance types and prices: the bundled catalog \(AWS did not answer: DescribeInstanceTypes: .*not authorized.*\); --offline skips asking$/,
    );
  });
});

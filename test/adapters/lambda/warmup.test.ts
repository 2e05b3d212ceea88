import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { lambdaHandler } from '../../../shared/adapters/lambda/handler';
import { WARMUP_SOURCE } from '../../../shared/core/ports/function-invoker';

const context = {
  functionName: 'nodewright-launchNodeClaim',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:nodewright-launchNodeClaim',
  memoryLimitInMB: '512',
  awsRequestId: 'r-1',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

describe('the Lambda edge', () => {
  it("should answer the controller's keep-warm ping without running the use case or reading its input", async () => {
    // Prepare
    const use = vi.fn(async () => 'launched');
    const handler = lambdaHandler('launchNodeClaim', use);
    // Act
    const out = await handler({ source: WARMUP_SOURCE }, context);
    // Assess
    expect(out).toBe('warmup');
    expect(use).not.toHaveBeenCalled();
  });

  it('should run the use case for any other event, a malformed one included', async () => {
    // Prepare
    const use = vi.fn(async () => 'launched');
    const handler = lambdaHandler('launchNodeClaim', use);
    // Act
    const out = await handler({ source: 'someone.else', nodeClaimName: 'x' }, context);
    // Assess
    expect(out).toBe('launched');
    expect(use).toHaveBeenCalledOnce();
  });
});

import { describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { handler } from '../../../functions/terminate/validate-terminate-input';
import { WARMUP_SOURCE } from '../../../shared/core/ports/function-invoker';

const context = {
  awsRequestId: 'req-1',
  functionName: 'nodewright-dev-validateTerminateInput',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:x',
  memoryLimitInMB: '512',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

describe('a deployed handler', () => {
  it('should fail with a named configuration error, before touching anything, when the environment is incomplete', async () => {
    // Prepare
    const saved = process.env.CLUSTER_NAME;
    delete process.env.CLUSTER_NAME;

    // Act
    const attempt = handler({ nodeName: 'ip-10-0-0-1' }, context);

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'ConfigInvalidError', message: expect.stringContaining('CLUSTER_NAME') });
    if (saved !== undefined) process.env.CLUSTER_NAME = saved;
  });

  it("should answer the controller's keep-warm ping at once: no configuration read, no dependencies built, no input parsed", async () => {
    // Prepare: an environment that would fail any real invocation
    const saved = process.env.CLUSTER_NAME;
    delete process.env.CLUSTER_NAME;

    // Act
    const out = await handler({ source: WARMUP_SOURCE }, context);

    // Assess
    expect(out).toBe('warmup');
    if (saved !== undefined) process.env.CLUSTER_NAME = saved;
  });
});

/** The controller's bill: item sizes, capacity units, sizing from serverless.yml, billed durations and cold starts. */
import { describe, expect, it } from 'vitest';
import { settle, VirtualClock } from '../../../shared/sim/clock';
import { DynamoTable } from '../../../shared/sim/aws/dynamo-table';
import { controllerBill, functionSizing } from '../../../shared/sim/runtime/bill';
import { BILLING_ASSUMPTIONS, Meter } from '../../../shared/sim/runtime/metering';
import { dynamoItemBytes } from '../../../shared/sim/aws/dynamo-table';
import { deployedFunctions } from '../../../shared/sim/runtime/functions';

async function runUntil(clock: VirtualClock, untilMs: number): Promise<void> {
  for (;;) {
    await settle(clock);
    if (!clock.advance(untilMs)) break;
  }
}

describe('controller metering', () => {
  it('should size items as DynamoDB does and bill write and read request units', () => {
    // Prepare
    const meter = new Meter(new VirtualClock(0));
    const table = new DynamoTable('pk', 'sk', meter);
    // Act
    table.put({ Item: { pk: 'a', sk: '1', body: 'x'.repeat(1500) } });
    table.query({ KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'a' } });
    table.delete({ Key: { pk: 'a', sk: '1' } });
    meter.stop();
    // Assess
    expect(dynamoItemBytes({ pk: 'ab', n: 12345, l: [1, 'x'] })).toBe(2 + 2 + 1 + 4 + 1 + (3 + (2 + 1) + (1 + 1))); // names + 'ab' + 12345 (3 digit pairs + 1) + list (3 + element + 1 each)
    expect(meter.dynamo.writeRequestUnits).toBe(2 + 2);
    expect(meter.dynamo.readRequestUnits).toBe(0.5);
  });

  it('should read memorySize and architecture from infra/functions and the serverless.yml provider', () => {
    const sizing = functionSizing();
    expect(sizing('disruption')).toEqual({ memoryMB: 1024, architecture: 'arm64' });
    expect(sizing('launchNodeClaim')).toEqual({ memoryMB: 512, architecture: 'arm64' });
  });

  it('should bill the virtual duration (INIT included), a cold start only without a warm sandbox, and extrapolate to 30 days', async () => {
    // Prepare
    const clock = new VirtualClock(0);
    const meter = new Meter(clock);
    const a = BILLING_ASSUMPTIONS;
    // Act: two runs of 10 s a minute apart (warm second time), one more after 10 idle minutes (cold again);
    // a cold run spends its INIT phase first, as the simulated runtime does (production.ts)
    const run = async (cold: boolean) => {
      if (cold) await clock.sleep(a.initMs);
      await clock.sleep(10_000);
    };
    for (const at of [0, 60_000, 670_000]) clock.at(at, () => void clock.track('t', () => meter.invocation('disruption', run)));
    await runUntil(clock, 3_600_000);
    const bill = controllerBill({
      meter,
      periodSeconds: 3600,
      functions: deployedFunctions(),
      executions: [{ transitions: 10 }],
      queue: { sends: 0, receives: 0, deletes: 0 },
    });
    meter.stop();
    // Assess
    const f = bill.lambda.functions.disruption;
    expect(f).toEqual(expect.objectContaining({ invocations: 3, coldStarts: 2, virtualSeconds: 30 + (2 * a.initMs) / 1000 }));
    expect(f.billedSeconds).toBeCloseTo(30 + (2 * a.initMs) / 1000, 6);
    expect(f.gbSeconds).toBeCloseTo(f.billedSeconds, 3);
    expect(bill.stepFunctions.stateTransitions).toBe(10);
    expect(bill.sqs.idleReceives).toBe(900);
    expect(bill.usdPerMonth.stepFunctions).toBeCloseTo(Math.round(10 * 720 * 0.000025 * 100) / 100, 6);
    expect(bill.usdPerMonth.total).toBeGreaterThan(0);
  });
});

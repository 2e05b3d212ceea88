/**
 * interruption — SQS-triggered (batches of 10, ReportBatchItemFailures, a failed record retried in 10 s). Each
 * record is an EventBridge event about an EC2 instance (docs/karpenter-reference.md §5); see docs/interruption.md.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { CloudProvider, Clock, MetricsRecorder, StateStore, WorkflowStarter } from '../../shared/core/ports';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { lp } from '../../shared/adapters/compose/parts/planner';
import { batchInstanceIds, batchReads, createOwnershipLookup, type InterruptionReads } from '../../shared/core/interruption/ownership-lookup';
import { instanceTypesByPool, launchReplacement, type LifecycleLogger } from '../../shared/core/lifecycle';
import { readReplacementInputs } from '../../shared/core/interruption/replacement-inputs';
import { planInterruptionReplacements } from '../../shared/core/interruption/replacements';
import { processInterruptionRecord, type ReplacementLauncher, type ReplacementPlanner } from '../../shared/core/interruption/process-message';
import { InterruptionRetry } from '../../shared/core/interruption/retry';
import { invocationDeadline } from '../../shared/adapters/lambda/deadline';
import { sqsQueueVisibility, type QueueVisibility } from '../../shared/adapters/aws/sqs/visibility';
import { awsClientConfig } from '../../shared/adapters/aws/client-config';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface InterruptionHandlerDeps {
  /** Reads by name and the cluster's configuration only: the function never reads the whole cluster. */
  cluster: InterruptionReads;
  cloud: Pick<CloudProvider, 'describeOwned'>;
  workflows: WorkflowStarter;
  store: StateStore;
  clock: Clock;
  /** Structured logger: in production the Powertools Logger through `lifecycleLogger()`. */
  log: LifecycleLogger;
  clusterName: string;
  /** Plans replacement capacity for an interrupted claim (absent: the drain starts with no pre-spun replacement). */
  planReplacements?: ReplacementPlanner;
  /** Launches a replacement claim at once (rebalance pre-provisioning). */
  launchReplacement?: ReplacementLauncher;
  metrics?: MetricsRecorder;
  /** Hides failed records for a short retry delay (absent: they come back after the queue's visibility timeout). */
  queue?: QueueVisibility;
}

export type InterruptionHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

export function createHandler(deps: InterruptionHandlerDeps): InterruptionHandler {
  return async (event, context) => {
    // Per invocation: the processor keeps per-batch state. One DescribeInstances by the batch's instance ids finds
    // the owned instances; each Kubernetes object is read at most once per batch, by name.
    const processor = new BatchProcessor(EventType.SQS);
    const cluster = batchReads(deps.cluster);
    const ownership = createOwnershipLookup(
      { cloud: deps.cloud, reads: cluster, clusterName: deps.clusterName },
      batchInstanceIds(event.Records.map((r) => r.body)),
    );
    const deadline = invocationDeadline(deps.clock, context, InterruptionRetry.deadlineMarginMs);
    const recordHandler = (record: SQSRecord) =>
      deadline.race(processInterruptionRecord({ ...deps, cluster, ownership }, record), `interruption message ${record.messageId}`);
    let response: SQSBatchResponse;
    try {
      response = await processPartialResponse(event, recordHandler, processor, {
        ...(context ? { context } : {}),
        throwOnFullBatchFailure: false,
      });
    } finally {
      deadline.stop();
    }
    if (response.batchItemFailures.length > 0) await retrySoon(deps, event, response);
    return response;
  };
}

/** Failed records come back in InterruptionRetry.retrySeconds, not after the queue's visibility timeout. */
async function retrySoon(deps: InterruptionHandlerDeps, event: SQSEvent, response: SQSBatchResponse): Promise<void> {
  const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
  deps.log.warn('interruption messages failed and will be redelivered', {
    failed: [...failed],
    total: event.Records.length,
    retryInSeconds: deps.queue ? InterruptionRetry.retrySeconds : 'visibility timeout',
  });
  if (!deps.queue) return;
  const handles = event.Records.filter((r) => failed.has(r.messageId)).map((r) => r.receiptHandle);
  try {
    await deps.queue.changeVisibility(handles, InterruptionRetry.retrySeconds);
  } catch (error) {
    deps.log.warn('could not shorten the retry delay of failed interruption messages; they come back after the visibility timeout', { error });
  }
}

/**
 * The deployed function: replacements for an interrupted node are planned here (the node's pods, the cluster's
 * configuration and those pods' volumes, the pools' instance types, the provisioner's planner with its LP) and launched by the
 * `disrupt` execution before the node is drained.
 */
export const handler = deployedHandler('interruption', { cluster, cloud, store, workflows, lp }, (deps): InterruptionHandler =>
  createHandler({
    cluster: deps.cluster,
    cloud: deps.cloud,
    workflows: deps.workflows,
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    clusterName: deps.config.clusterName,
    metrics: deps.metrics,
    planReplacements: async (reads, claim, seed, eventTimeMs) => {
      const { snapshot, poolUsage } = await readReplacementInputs(reads, claim);
      const types = await instanceTypesByPool(deps, snapshot);
      return planInterruptionReplacements(snapshot, types, claim.name, seed, eventTimeMs, { poolUsage, loadLp: deps.lp });
    },
    launchReplacement: async (claim, id) => {
      await launchReplacement(deps, { nodeClaim: claim, disruptionId: id, reason: 'rebalance_recommendation' });
    },
    ...(deps.config.interruptionQueueUrl
      ? { queue: sqsQueueVisibility(new SQSClient(awsClientConfig(deps.config.region)), deps.config.interruptionQueueUrl) }
      : {}),
  }),
);

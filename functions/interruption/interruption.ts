/**
 * interruption — SQS-triggered (batch size 10, ReportBatchItemFailures). Each record is an EventBridge
 * event about an EC2 instance (docs/karpenter-reference.md §5); see docs/interruption.md.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { CloudProvider, ClusterClient, Clock, MetricsRecorder, StateStore, WorkflowStarter } from '../../shared/core/ports';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cloud } from '../../shared/adapters/compose/parts/cloud';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { workflows } from '../../shared/adapters/compose/parts/workflows';
import { createOwnershipLookup, once } from '../../shared/core/interruption/ownership-lookup';
import { instanceTypesByPool, launchReplacement, type LifecycleLogger } from '../../shared/core/lifecycle';
import { planInterruptionReplacements } from '../../shared/core/interruption/replacements';
import { processInterruptionRecord, type ReplacementLauncher, type ReplacementPlanner } from '../../shared/core/interruption/process-message';

export interface InterruptionHandlerDeps {
  cluster: ClusterClient;
  cloud: CloudProvider;
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
}

export type InterruptionHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

export function createHandler(deps: InterruptionHandlerDeps): InterruptionHandler {
  return async (event, context) => {
    // Per invocation: the processor keeps per-batch state, and ownership is read once per batch.
    const processor = new BatchProcessor(EventType.SQS);
    // One cluster snapshot per batch, shared by ownership, replacement planning and rebalance policies.
    const cluster: ClusterClient = Object.assign(Object.create(deps.cluster) as ClusterClient, { snapshot: once(() => deps.cluster.snapshot()) });
    const ownership = createOwnershipLookup({ ...deps, cluster });
    const recordHandler = (record: SQSRecord) => processInterruptionRecord({ ...deps, cluster, ownership }, record);
    const response = await processPartialResponse(event, recordHandler, processor, {
      ...(context ? { context } : {}),
      throwOnFullBatchFailure: false,
    });
    if (response.batchItemFailures.length > 0) {
      deps.log.warn('interruption messages failed and will be redelivered', {
        failed: response.batchItemFailures.map((f) => f.itemIdentifier),
        total: event.Records.length,
      });
    }
    return response;
  };
}

/**
 * The deployed function: replacements for an interrupted node are planned here (snapshot + instance types +
 * the scheduling core) and launched by the `disrupt` execution before the node is drained.
 */
export const handler = deployedHandler('interruption', { cluster, cloud, store, workflows }, (deps): InterruptionHandler =>
  createHandler({
    cluster: deps.cluster,
    cloud: deps.cloud,
    workflows: deps.workflows,
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    clusterName: deps.config.clusterName,
    metrics: deps.metrics,
    planReplacements: async (snapshot, nodeClaim, seed, eventTimeMs) =>
      planInterruptionReplacements(snapshot, await instanceTypesByPool(deps, snapshot), nodeClaim, seed, eventTimeMs),
    launchReplacement: async (claim, id) => {
      await launchReplacement(deps, { nodeClaim: claim, disruptionId: id, reason: 'rebalance_recommendation' });
    },
  }),
);

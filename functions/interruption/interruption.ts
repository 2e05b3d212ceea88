/**
 * interruption — SQS-triggered (batch size 10, ReportBatchItemFailures). Each record is an EventBridge
 * event about an EC2 instance (reference §5); see docs/interruption.md.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { CloudProvider, ClusterClient, Clock, StateStore, WorkflowStarter } from '../../shared/core/ports';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { lifecycleLogger } from '../../shared/adapters/lambda/handler';
import { createOwnershipLookup } from './ownership-lookup';
import { processInterruptionRecord, type InterruptionLogger, type ProvisioningTrigger } from './process-message';

export interface InterruptionHandlerDeps {
  cluster: ClusterClient;
  cloud: CloudProvider;
  workflows: WorkflowStarter;
  state: StateStore;
  clock: Clock;
  /** Structured logger: in production the Powertools Logger through `lifecycleLogger()`. */
  logger: InterruptionLogger;
  clusterName: string;
  /** Present when the composition root offers a way to run the provisioner now. */
  triggerProvisioning?: ProvisioningTrigger;
}

export type InterruptionHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

export function createHandler(deps: InterruptionHandlerDeps): InterruptionHandler {
  return async (event, context) => {
    // Per invocation: the processor keeps per-batch state, and ownership is read once per batch.
    const processor = new BatchProcessor(EventType.SQS);
    const ownership = createOwnershipLookup(deps);
    const recordHandler = (record: SQSRecord) => processInterruptionRecord({ ...deps, ownership }, record);
    const response = await processPartialResponse(event, recordHandler, processor, {
      ...(context ? { context } : {}),
      throwOnFullBatchFailure: false,
    });
    if (response.batchItemFailures.length > 0) {
      deps.logger.warn('interruption messages failed and will be redelivered', {
        failed: response.batchItemFailures.map((f) => f.itemIdentifier),
        total: event.Records.length,
      });
    }
    return response;
  };
}

/**
 * The deployed function. The composition root offers no provisioner trigger: replacements come from the
 * scheduled provisioner once the drained pods are pending (docs/interruption.md).
 */
export const handler = deployedHandler<SQSEvent, SQSBatchResponse>('interruption', (deps) =>
  createHandler({
    cluster: deps.cluster,
    cloud: deps.cloud,
    workflows: deps.workflows,
    state: deps.store,
    clock: deps.clock,
    logger: lifecycleLogger(),
    clusterName: deps.config.clusterName,
    // Replacements start at once: a `launch` reconcile runs the provisioner now, which also plans the pods of
    // nodes being drained. Named after the instance, so a repeated event cannot start a second one.
    triggerProvisioning: async ({ instanceId }) => {
      await deps.workflows.start('launch', `reconcile-interruption-${instanceId}`, { reconcile: true });
    },
  }),
);

/** ChangeMessageVisibilityBatch on the interruption queue: a failed record comes back after a short retry delay. */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { mapAwsError } from '../errors';

export interface QueueVisibility {
  /**
   * Hides each received message (by its receipt handle) for `seconds` from now. An entry SQS refuses (an expired
   * receipt handle) keeps the visibility it had: the queue's timeout.
   */
  changeVisibility(receiptHandles: readonly string[], seconds: number): Promise<void>;
}

export function sqsQueueVisibility(sqs: SQSClient, queueUrl: string): QueueVisibility {
  return {
    async changeVisibility(receiptHandles, seconds) {
      for (let i = 0; i < receiptHandles.length; i += 10) {
        const chunk = receiptHandles.slice(i, i + 10);
        try {
          await sqs.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((receiptHandle, j) => ({ Id: String(i + j), ReceiptHandle: receiptHandle, VisibilityTimeout: seconds })),
            }),
          );
        } catch (e) {
          throw mapAwsError(e, 'ChangeMessageVisibilityBatch');
        }
      }
    },
  };
}

/** The state store: one DynamoDB table (leases, offering cache, prices, dedupe marks). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClientConfig } from '../../aws/client-config';
import { DynamoStateStore } from '../../aws/state-store/dynamo';
import { part } from '../base';

/**
 * Lease calls give up fast (2 attempts of at most 2 s each, where DynamoDB answers in milliseconds): their callers
 * retry on their own clock within the lease's TTL (docs/controller.md, "The lease under faults").
 */
const LEASE_REQUEST_TIMEOUT_MS = 2_000;
const LEASE_MAX_ATTEMPTS = 2;

export const store = part(
  'store',
  (b) =>
    new DynamoStateStore({
      client: DynamoDBDocumentClient.from(new DynamoDBClient(awsClientConfig(b.config.region))),
      leaseClient: DynamoDBDocumentClient.from(
        new DynamoDBClient({ ...awsClientConfig(b.config.region, { requestTimeoutMs: LEASE_REQUEST_TIMEOUT_MS }), maxAttempts: LEASE_MAX_ATTEMPTS }),
      ),
      tableName: b.config.stateTableName,
      clock: b.clock,
    }),
);

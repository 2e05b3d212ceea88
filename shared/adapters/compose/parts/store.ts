/** The state store: one DynamoDB table (leases, offering cache, prices, dedupe marks). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClientConfig } from '../../aws/client-config';
import { DynamoStateStore } from '../../aws/state-store/dynamo';
import { part } from '../base';

export const store = part(
  'store',
  (b) =>
    new DynamoStateStore({
      client: DynamoDBDocumentClient.from(new DynamoDBClient(awsClientConfig(b.config.region))),
      tableName: b.config.stateTableName,
      clock: b.clock,
    }),
);

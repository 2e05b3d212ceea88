/**
 * The list prices the simulator bills the controller's own AWS usage with (`controller` in `simulate -o json`).
 * us-east-1 public list prices (the first volume tier of each, no free tier) as issue #8 gives them from the
 * AWS pricing pages — docs/controller-cost.md has the same table with the pages and the date; change both
 * together.
 */
export const PRICES = {
  region: 'us-east-1',
  /** AWS Lambda, per GB-second of billed duration (1 ms granularity), by architecture. */
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 },
  /** AWS Lambda, per request. */
  lambdaRequest: 0.2 / 1e6,
  /** Step Functions Standard, per state transition. */
  stepFunctionsTransition: 0.025 / 1000,
  /** SQS standard queue, per request (each 64 KB chunk of a payload is one request). */
  sqsRequest: 0.4 / 1e6,
  /** DynamoDB on-demand, per write request unit (1 KB) and read request unit (4 KB strongly consistent). */
  dynamoWriteRequestUnit: 0.625 / 1e6,
  dynamoReadRequestUnit: 0.125 / 1e6,
  /** CloudWatch custom metric (namespace × name × dimension set), per metric-month. */
  cloudWatchMetricMonth: 0.3,
  /** CloudWatch Logs standard ingestion, per GB (10^9 bytes here: more GB than 2^30 would give). */
  cloudWatchLogsIngestedGb: 0.5,
  /** EventBridge Scheduler, per invocation (scheduled rules on the default event bus would be free). */
  schedulerInvocation: 1.0 / 1e6,
} as const;

/** The billing month the run is extrapolated to. */
export const MONTH_SECONDS = 30 * 24 * 3600;

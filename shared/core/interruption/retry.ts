/**
 * How a failed interruption message is retried (docs/interruption.md, "The queue"). The queue's visibility
 * timeout is 6× the function's timeout (AWS's guidance for an SQS-triggered function, so a throttled or retried
 * invocation never sees its batch come back while it still runs); a record the function reports failed is hidden
 * for `retrySeconds` only (ChangeMessageVisibility), so a 2-minute spot warning is retried throughout its notice.
 */
export const InterruptionRetry = {
  /** A failed record is received again this much later. */
  retrySeconds: 10,
  /** A record still running this long before the function's timeout is reported failed (and retried in retrySeconds). */
  deadlineMarginMs: 3_000,
  /**
   * How long the delivery that acted on an event holds its follow-up lease (process-message.ts): longer than the
   * queue's retention (3600 s), so every other delivery of the same event arrives while it is held.
   */
  followUpLeaseSeconds: 3_900,
} as const;

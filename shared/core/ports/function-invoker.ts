/** The functions the controller calls directly (Lambda Invoke when deployed). */
export type InvokedFunction = 'provisioner' | 'disruption' | 'garbageCollection';

/**
 * Functions on the two paths where seconds count — a pending pod's launch, a spot warning's replacement — that the
 * controller keeps warm with a ping that does no work (docs/controller.md).
 */
export type WarmedFunction =
  'provisioner' | 'validateLaunchInput' | 'launchNodeClaim' | 'interruption' | 'validateDisruptInput' | 'taintCandidates' | 'launchReplacement';

/** The `source` of a keep-warm ping: a function answers it at once, before reading its input. */
export const WARMUP_SOURCE = 'nodewright.warmup';

export interface FunctionInvoker {
  /** Runs the function with `payload` and returns its result; a function error is thrown. */
  invoke(fn: InvokedFunction, payload: unknown): Promise<unknown>;
  /** Pings the function asynchronously (`{ source: WARMUP_SOURCE }`) so a sandbox stays warm; does not wait for it to run. */
  warm(fn: WarmedFunction): Promise<void>;
}

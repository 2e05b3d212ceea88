/** The functions the controller calls directly (Lambda Invoke when deployed). */
export type InvokedFunction = 'provisioner' | 'disruption' | 'garbageCollection';

export interface FunctionInvoker {
  /** Runs the function with `payload` and returns its result; a function error is thrown. */
  invoke(fn: InvokedFunction, payload: unknown): Promise<unknown>;
}

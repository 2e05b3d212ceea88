/** FunctionInvoker over Lambda Invoke: RequestResponse to run the provisioner and disruption functions, Event for keep-warm pings. */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { WARMUP_SOURCE, type FunctionInvoker, type InvokedFunction, type WarmedFunction } from '../../../core/ports/function-invoker';

class FunctionInvocationError extends Error {
  override readonly name = 'FunctionInvocationError' as const;
}

export class LambdaFunctionInvoker implements FunctionInvoker {
  constructor(private readonly deps: { lambda: LambdaClient; functionNamePrefix: string }) {}

  async invoke(fn: InvokedFunction, payload: unknown): Promise<unknown> {
    const out = await this.deps.lambda.send(
      new InvokeCommand({
        FunctionName: `${this.deps.functionNamePrefix}${fn}`,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    );
    const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
    if (out.FunctionError) throw new FunctionInvocationError(`${fn} failed (${out.FunctionError}): ${text.slice(0, 500)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  }

  async warm(fn: WarmedFunction): Promise<void> {
    await this.deps.lambda.send(
      new InvokeCommand({
        FunctionName: `${this.deps.functionNamePrefix}${fn}`,
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(JSON.stringify({ source: WARMUP_SOURCE })),
      }),
    );
  }
}

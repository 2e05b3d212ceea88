import { settle } from '../clock';
import type { SimWorld } from './world';

/** Invokes a deployed function by hand (as `aws lambda invoke` would), moving the world's virtual time until it answers. */
export async function invokeFunction(world: SimWorld, functionKey: string, event: unknown): Promise<unknown> {
  let answer: { value?: unknown; error?: unknown } | undefined;
  world.production.invoke(functionKey, event).then(
    (value) => (answer = { value }),
    (error: unknown) => (answer = { error }),
  );
  while (!answer) {
    await settle(world.clock);
    if (!answer) world.clock.advance(world.clock.now() + 1000);
  }
  if (answer.error) throw answer.error;
  return answer.value;
}

/**
 * `npm run demo`: the seed walkthrough on the embedded default — the whole product (the production Lambda
 * handlers, adapters and Step Functions definitions) running on a simulated EKS + EC2 in virtual time:
 * NodePool applied, `inflate` scaled 0 → 5 → 12 → 5 → 1 → 0, a spot interruption and an expiry.
 */
import { fileURLToPath } from 'node:url';
import { simulateFile } from './simulate';

export const WALKTHROUGH = fileURLToPath(new URL('../examples/scenarios/walkthrough.yaml', import.meta.url));

export async function demoCommand(out: (s: string) => void, err: (s: string) => void): Promise<number> {
  err('nodewright demo: simulating the seed walkthrough (examples/scenarios/walkthrough.yaml) — 60 simulated minutes.');
  return simulateFile(WALKTHROUGH, { output: 'table' }, out, err);
}

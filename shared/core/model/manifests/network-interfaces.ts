/**
 * EC2NodeClass `spec.networkInterfaces` (karpenter.k8s.aws/v1): the interfaces a launch attaches, with the CRD's
 * bounds and its two CEL rules (a primary `interface` at card 0 / device 0; no duplicate card+device pairs and at
 * most one `efa-only` interface per network card).
 */
import * as z from '../../zod';
import type { NetworkInterface } from '../karpenter';

const index = (what: string) => z.number().check(z.int(`${what} must be an integer`), z.gte(0, `${what} must be at least 0`));

const interfaceSchema = z.object({
  networkCardIndex: index('networkCardIndex'),
  deviceIndex: index('deviceIndex'),
  interfaceType: z.enum(['interface', 'efa-only']),
});

export const networkInterfacesSchema = z.array(interfaceSchema).check(
  z.maxLength(150, 'at most 150 networkInterfaces are allowed'),
  z.superRefine((nics: NetworkInterface[], ctx) => {
    if (nics.length > 0 && !nics.some((n) => n.networkCardIndex === 0 && n.deviceIndex === 0 && n.interfaceType === 'interface')) {
      ctx.addIssue({ code: 'custom', path: [], message: "networkInterfaces must include a primary interface with interfaceType='interface'" });
    }
    const message = 'networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card';
    const pairs = new Set<string>();
    const efaCards = new Set<number>();
    for (const [i, n] of nics.entries()) {
      const pair = `${n.networkCardIndex}/${n.deviceIndex}`;
      const duplicate = pairs.has(pair) || (n.interfaceType === 'efa-only' && efaCards.has(n.networkCardIndex));
      if (duplicate) {
        ctx.addIssue({ code: 'custom', path: [i], message });
        return;
      }
      pairs.add(pair);
      if (n.interfaceType === 'efa-only') efaCards.add(n.networkCardIndex);
    }
  }),
);

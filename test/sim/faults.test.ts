import { describe, expect, it } from 'vitest';
import { FaultPlan, validateFault } from '../../shared/sim/faults';
import { parseScenario } from '../../shared/sim';

describe('fault injection', () => {
  it('should inject only inside its window, only for its target, at its rate, the same way every run', () => {
    // Prepare
    let t = 0;
    const plan = () =>
      new FaultPlan(
        [
          { at: 10, for: 5, target: 'ec2', kind: 'throttle', rate: 0.5 },
          { at: 0, for: 100, target: 'task:LaunchNodeClaim', kind: 'timeout' },
        ],
        7,
        () => t,
      );
    const a = plan();
    const b = plan();
    // Act
    const draws = (p: FaultPlan) =>
      [9, 10, 11, 12, 13, 14, 15].map((s) => {
        t = s;
        return p.check('ec2');
      });
    const first = draws(a);
    const second = draws(b);
    // Assess
    expect(first).toEqual(second);
    expect(first[0]).toBeUndefined();
    expect(first[6]).toBeUndefined();
    expect(first.filter(Boolean).length).toBeGreaterThan(0);
    expect(a.check('lambda:launchNodeClaim')).toBe('timeout');
    expect(a.check('sfn')).toBeUndefined();
  });

  it('should accept API-server hangs and timeouts, and refuse a kind its target does not have, naming the fault', () => {
    expect(() => validateFault({ at: 0, for: 1, target: 'kube-api', kind: 'hang' }, 'faults.0')).not.toThrow();
    expect(() => validateFault({ at: 0, for: 1, target: 'ec2', kind: 'hang' }, 'faults.0')).not.toThrow();
    expect(() => validateFault({ at: 0, for: 1, target: 'sqs', kind: 'hang' }, 'faults.0')).toThrow(/faults\.0: kind for sqs must be one of duplicate/);
    expect(() => validateFault({ at: 0, for: 1, target: 'lambda:provisioner', kind: 'throttle' }, 'faults.1')).toThrow(
      /faults\.1: kind for lambda:provisioner must be one of crash, timeout/,
    );
    expect(() => parseScenario('name: x\nfaults: [{at: 1m, for: 10s, target: s3, kind: error}]\n', 'x.yaml')).toThrow(/x\.yaml: faults\.0: target must be/);
  });

  it('should give an EC2 lag to the launches inside its window only, never as a failed request', () => {
    // Prepare
    let t = 0;
    const plan = new FaultPlan([{ at: 10, for: 5, target: 'ec2', kind: 'lag', lag: 90 }], 7, () => t);
    // Act
    const at = (s: number) => {
      t = s;
      return [plan.lagSeconds('ec2'), plan.check('ec2')];
    };
    // Assess
    expect([at(9), at(10), at(14), at(15)]).toEqual([
      [0, undefined],
      [90, undefined],
      [90, undefined],
      [0, undefined],
    ]);
    expect(parseScenario('name: x\nfaults: [{at: 0s, for: 10m, target: ec2, kind: lag, lag: 1m}]\n', 'x.yaml').faults).toEqual([
      { at: 0, for: 600, target: 'ec2', kind: 'lag', lag: 60 },
    ]);
    expect(() => validateFault({ at: 0, for: 1, target: 'sfn', kind: 'lag' }, 'faults.0')).toThrow(
      /faults\.0: kind for sfn must be one of error, throttle, timeout, hang/,
    );
    expect(() => validateFault({ at: 0, for: 1, target: 'ec2', kind: 'error', lag: 30 }, 'faults.1')).toThrow(/faults\.1: lag is only for kind lag/);
  });
});

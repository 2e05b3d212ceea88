import { describe, expect, it } from 'vitest';
import { readPath, waitSeconds, waitSecondsBetween } from '../../../shared/sim/runtime/step-functions';
import { loadDefinition } from '../../../shared/sim/sfn';

describe('Wait states on virtual time', () => {
  it('should find the Wait seconds between two Tasks of the real launch machine', () => {
    // Prepare
    const launch = loadDefinition('launch');
    // Act / Assess
    expect(waitSecondsBetween(launch.States, launch.StartAt, 'LaunchNodeClaim', 'CheckRegistration')).toBe(launch.States.WaitForRegistration.Seconds);
    expect(waitSecondsBetween(launch.States, launch.StartAt, 'CheckRegistration', 'CheckRegistration')).toBe(launch.States.WaitForRegistration.Seconds);
    expect(waitSecondsBetween(launch.States, launch.StartAt, 'CheckRegistration', 'InitializeNode')).toBe(0);
    expect(waitSecondsBetween(launch.States, launch.StartAt, undefined, 'ValidateLaunchInput')).toBe(0);
  });

  it('should take SecondsPath from the previous Task output (the terminate drain loop)', () => {
    // Prepare
    const terminate = loadDefinition('terminate');
    const wait = Object.values(terminate.States).find((s) => s.Type === 'Wait' && s.Next === 'EvictPods');
    // Act
    const seconds = waitSecondsBetween(terminate.States, terminate.StartAt, 'EvictPods', 'EvictPods', { drained: false, waitSeconds: 40 });
    // Assess
    expect(seconds).toBe(typeof wait?.Seconds === 'number' ? wait.Seconds : 40);
  });

  it('should read simple JSONPaths and Timestamp waits', () => {
    // Act / Assess
    expect(readPath({ a: { b: [1, { c: 7 }] } }, '$.a.b[1].c')).toBe(7);
    expect(readPath({ a: 1 }, '$.missing.x')).toBeUndefined();
    expect(waitSeconds({ Type: 'Wait', TimestampPath: '$.at' }, { at: '2025-01-01T00:01:00Z' }, Date.UTC(2025, 0, 1))).toBe(60);
    expect(waitSeconds({ Type: 'Wait', SecondsPath: '$.s' }, { s: 'x' }, 0)).toBe(0);
  });
});

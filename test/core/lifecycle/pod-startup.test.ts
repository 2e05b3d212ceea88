/** karpenter_pods_startup_duration_seconds from the controller's pods watches, as Karpenter's pod metrics controller. */
import { describe, expect, it } from 'vitest';
import { PodStartups } from '../../../shared/core/lifecycle/pod-startup';
import { pod, RecordingMetrics } from '../../fakes/lifecycle';
import { addSeconds, fromSeconds } from '../../../shared/core/time';

const CREATED = fromSeconds(1_767_225_600);

describe('PodStartups', () => {
  it('should observe a pod seen Pending once, from its creation to its Ready transition, across its leaving the unbound stream', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const startups = new PodStartups(metrics);
    const ready = pod('web-1', { phase: 'Running', ready: true, readySince: addSeconds(CREATED, 47), creationTimestamp: CREATED });
    // Act: pending on `pods`, bound (DELETED there, ADDED on `boundpods`), then Ready
    startups.apply('pods', 'ADDED', pod('web-1', { phase: 'Pending', nodeName: undefined, creationTimestamp: CREATED }), CREATED);
    startups.apply('pods', 'DELETED', pod('web-1', { phase: 'Pending', nodeName: undefined, creationTimestamp: CREATED }), addSeconds(CREATED, 30));
    startups.apply('boundpods', 'ADDED', pod('web-1', { phase: 'Pending', creationTimestamp: CREATED }), addSeconds(CREATED, 30));
    startups.apply('boundpods', 'MODIFIED', pod('web-1', { phase: 'Running', ready: false, creationTimestamp: CREATED }), addSeconds(CREATED, 40));
    startups.apply('boundpods', 'MODIFIED', ready, addSeconds(CREATED, 48));
    startups.apply('boundpods', 'MODIFIED', ready, addSeconds(CREATED, 60));
    // Assess
    expect(metrics.matching('karpenter_pods_startup_duration_seconds').map((r) => r.value)).toEqual([47]);
    expect(startups.waiting).toBe(0);
  });

  it('should count a pod first seen bound and still Pending (bound while the watches changed hands)', () => {
    // Prepare
    const metrics = new RecordingMetrics();
    const startups = new PodStartups(metrics);
    // Act
    startups.apply('boundpods', 'MODIFIED', pod('web-2', { phase: 'Pending', creationTimestamp: CREATED }), addSeconds(CREATED, 20));
    startups.apply(
      'boundpods',
      'MODIFIED',
      pod('web-2', { phase: 'Running', ready: true, readySince: addSeconds(CREATED, 25), creationTimestamp: CREATED }),
      addSeconds(CREATED, 26),
    );
    // Assess
    expect(metrics.matching('karpenter_pods_startup_duration_seconds').map((r) => r.value)).toEqual([25]);
  });

  it('should not count a pod it first saw already running, nor one deleted while pending', () => {
    const metrics = new RecordingMetrics();
    const startups = new PodStartups(metrics);
    startups.apply(
      'boundpods',
      'MODIFIED',
      pod('old', { phase: 'Running', ready: true, readySince: addSeconds(CREATED, 5), creationTimestamp: CREATED }),
      CREATED,
    );
    startups.apply('boundpods', 'ADDED', pod('gone', { phase: 'Pending', creationTimestamp: CREATED }), CREATED);
    startups.apply('boundpods', 'DELETED', pod('gone', { phase: 'Pending', creationTimestamp: CREATED }), CREATED);
    startups.apply('boundpods', 'MODIFIED', pod('gone', { phase: 'Running', ready: true, creationTimestamp: CREATED }), addSeconds(CREATED, 9));
    expect(metrics.matching('karpenter_pods_startup_duration_seconds')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { EmfMetricsRecorder, teeMetrics } from '../../../shared/adapters/metrics/emf';
import type { MetricName } from '../../../shared/core/metrics/catalog';
import { RecordingMetrics } from '../../fakes/lifecycle';

/** An EMF document as Powertools serializes it. */
type EmfDocument = Record<string, unknown> & {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
};

/**
 * An EmfMetricsRecorder on a fresh Powertools instance whose publishStoredMetrics keeps the documents instead of
 * printing them. Like Powertools, nothing is written when no metric is stored.
 */
function setup() {
  const metrics = new Metrics({ namespace: 'nodewright', serviceName: 'nodewright' });
  const documents: EmfDocument[] = [];
  metrics.publishStoredMetrics = () => {
    if (metrics.hasStoredMetrics()) documents.push(metrics.serializeMetrics() as unknown as EmfDocument);
    metrics.clearMetrics();
    metrics.clearDimensions();
    return metrics;
  };
  return { recorder: new EmfMetricsRecorder(metrics), documents };
}

const dimensionsOf = (doc: EmfDocument): string[] => [...doc._aws.CloudWatchMetrics[0].Dimensions[0]].sort();
const metricNames = (doc: EmfDocument): string[] => doc._aws.CloudWatchMetrics[0].Metrics.map((m) => m.Name);
const unitOf = (doc: EmfDocument, name: MetricName): string | undefined => doc._aws.CloudWatchMetrics[0].Metrics.find((m) => m.Name === name)?.Unit;
/** The documents carrying `name`. */
const carrying = (documents: EmfDocument[], name: MetricName): EmfDocument[] => documents.filter((d) => metricNames(d).includes(name));
/** Every value of `name` over the documents, flattened (a value list or a single number). */
const valuesOf = (documents: EmfDocument[], name: MetricName): number[] => carrying(documents, name).flatMap((d) => d[name] as number | number[]);

describe('EmfMetricsRecorder', () => {
  it('should publish a counter recorded several times in one invocation as one summed value', () => {
    // Prepare
    const { recorder, documents } = setup();
    const labels = { reason: 'provisioned', nodepool: 'default', min_values_relaxed: 'false' };
    // Act
    recorder.count('karpenter_nodeclaims_created_total', labels);
    recorder.count('karpenter_nodeclaims_created_total', labels);
    recorder.count('karpenter_nodeclaims_created_total', labels, 3);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(documents[0]._aws.CloudWatchMetrics[0].Namespace).toBe('nodewright');
    expect(documents[0].karpenter_nodeclaims_created_total).toBe(5);
    expect(unitOf(documents[0], 'karpenter_nodeclaims_created_total')).toBe('Count');
  });

  it('should publish each distinct label set in its own document, with service and the metric labels as dimensions', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.count('karpenter_nodeclaims_created_total', { reason: 'provisioned', nodepool: 'default', min_values_relaxed: 'false' });
    recorder.count('karpenter_nodeclaims_created_total', { reason: 'provisioned', nodepool: 'gpu', min_values_relaxed: 'false' }, 2);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(2);
    for (const doc of documents) expect(dimensionsOf(doc)).toEqual(['min_values_relaxed', 'nodepool', 'reason', 'service']);
    const byPool = Object.fromEntries(documents.map((d) => [d.nodepool, d.karpenter_nodeclaims_created_total]));
    expect(byPool).toEqual({ default: 1, gpu: 2 });
    expect(documents.every((d) => d.service === 'nodewright')).toBe(true);
  });

  it('should publish metrics that share a label set in one document', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.gauge('karpenter_nodepools_cost_total', { nodepool: 'default' }, 0.5);
    recorder.observe('karpenter_nodes_termination_duration_seconds', { nodepool: 'default' }, 42);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(metricNames(documents[0]).sort()).toEqual(['karpenter_nodepools_cost_total', 'karpenter_nodes_termination_duration_seconds']);
    expect(documents[0].karpenter_nodepools_cost_total).toBe(0.5);
    expect(documents[0].nodepool).toBe('default');
  });

  it('should leave emfDrop labels out of the dimensions and sum a counter over them', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.count('karpenter_nodes_created_total', { nodepool: 'default', zone: 'eu-west-1a' });
    recorder.count('karpenter_nodes_created_total', { nodepool: 'default', zone: 'eu-west-1b' });
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(dimensionsOf(documents[0])).toEqual(['nodepool', 'service']);
    expect(documents[0]).not.toHaveProperty('zone');
    expect(documents[0].karpenter_nodes_created_total).toBe(2);
  });

  it('should sum a gauge over its emfDrop labels, so two nodes of one nodepool give one value', () => {
    // Prepare
    const { recorder, documents } = setup();
    const node = (name: string, zone: string) => ({
      node_name: name,
      nodepool: 'default',
      resource_type: 'cpu',
      zone,
      capacity_type: 'spot',
      instance_type: 'm5.large',
      arch: 'amd64',
    });
    // Act
    recorder.gaugeSet('karpenter_nodes_allocatable', [
      { labels: node('ip-10-0-0-1', 'eu-west-1a'), value: 1.93 },
      { labels: node('ip-10-0-0-2', 'eu-west-1b'), value: 3.92 },
    ]);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(dimensionsOf(documents[0])).toEqual(['nodepool', 'resource_type', 'service']);
    expect(documents[0].karpenter_nodes_allocatable).toBeCloseTo(5.85);
    expect(documents[0]).not.toHaveProperty('node_name');
  });

  // The disruption function runs several passes per invocation: a series of an earlier pass must not stay in the sum.
  it('should replace a gauge as a whole on gaugeSet, so a node gone by the next pass is no longer summed', () => {
    // Prepare
    const { recorder, documents } = setup();
    const node = (name: string) => ({ node_name: name, nodepool: 'default', resource_type: 'cpu' });
    recorder.gaugeSet('karpenter_nodes_allocatable', [
      { labels: node('ip-10-0-0-1'), value: 2 },
      { labels: node('ip-10-0-0-2'), value: 4 },
    ]);
    // Act
    recorder.gaugeSet('karpenter_nodes_allocatable', [{ labels: node('ip-10-0-0-1'), value: 2 }]);
    recorder.flush();
    // Assess
    expect(valuesOf(documents, 'karpenter_nodes_allocatable')).toEqual([2]);
  });

  it('should keep the last value of a gauge set twice for the same labels', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.gauge('karpenter_scheduler_queue_depth', { controller: 'provisioner' }, 7);
    recorder.gauge('karpenter_scheduler_queue_depth', { controller: 'provisioner' }, 3);
    recorder.flush();
    // Assess
    expect(valuesOf(documents, 'karpenter_scheduler_queue_depth')).toEqual([3]);
  });

  it('should not publish series outside emfOnly', () => {
    // Prepare
    const { recorder, documents } = setup();
    const labels = (resource: string) => ({ node_name: 'ip-10-0-0-1', nodepool: 'default', resource_type: resource });
    // Act
    recorder.gaugeSet('karpenter_nodes_allocatable', [
      { labels: labels('cpu'), value: 1.93 },
      { labels: labels('memory'), value: 7e9 },
      { labels: labels('pods'), value: 29 },
      { labels: labels('ephemeral-storage'), value: 2e10 },
    ]);
    recorder.gauge('karpenter_nodes_total_pod_requests', { nodepool: 'default' }, 1);
    recorder.flush();
    // Assess
    expect(documents.map((d) => d.resource_type).sort()).toEqual(['cpu', 'memory']);
    expect(carrying(documents, 'karpenter_nodes_total_pod_requests')).toEqual([]);
  });

  it('should leave empty label values out of the dimensions', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.count('karpenter_voluntary_disruption_decisions_total', { decision: 'delete', reason: 'drifted', consolidation_type: '' });
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(dimensionsOf(documents[0])).toEqual(['decision', 'reason', 'service']);
    expect(documents[0]).not.toHaveProperty('consolidation_type');
    expect(documents[0].karpenter_voluntary_disruption_decisions_total).toBe(1);
  });

  it('should publish a metric without labels with the service dimension only', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.count('karpenter_interruption_deleted_messages_total');
    recorder.gauge('karpenter_cluster_state_node_count', {}, 4);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(dimensionsOf(documents[0])).toEqual(['service']);
    expect(documents[0].karpenter_interruption_deleted_messages_total).toBe(1);
    expect(documents[0].karpenter_cluster_state_node_count).toBe(4);
  });

  it('should publish observations as a list of values in seconds', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.observe('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, 0.25);
    recorder.observe('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, 1.5);
    recorder.observe('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, 0.75);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
    expect(documents[0].karpenter_scheduler_scheduling_duration_seconds).toEqual([0.25, 1.5, 0.75]);
    expect(unitOf(documents[0], 'karpenter_scheduler_scheduling_duration_seconds')).toBe('Seconds');
  });

  it('should split more than 100 observations across documents, each with the dimensions', () => {
    // Prepare
    const { recorder, documents } = setup();
    const observed = Array.from({ length: 250 }, (_, i) => i / 10);
    // Act
    for (const v of observed) recorder.observe('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, v);
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(3);
    for (const doc of documents) {
      expect(([] as number[]).concat(doc.karpenter_scheduler_scheduling_duration_seconds as number | number[]).length).toBeLessThanOrEqual(100);
      expect(dimensionsOf(doc)).toEqual(['controller', 'service']);
      expect(doc.controller).toBe('provisioner');
    }
    expect(valuesOf(documents, 'karpenter_scheduler_scheduling_duration_seconds')).toEqual(observed);
  });

  // Powertools publishes by itself when a metric reaches 100 values and clears the dimensions: the recorder must
  // never let it, or metrics added after it in the same document lose theirs.
  it('should keep the dimensions of every metric of a label set when one of them has more than 100 observations', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    for (let i = 0; i < 150; i++) recorder.observe('karpenter_nodes_termination_duration_seconds', { nodepool: 'default' }, i);
    recorder.gauge('karpenter_nodepools_cost_total', { nodepool: 'default' }, 0.5);
    recorder.flush();
    // Assess
    expect(valuesOf(documents, 'karpenter_nodes_termination_duration_seconds')).toHaveLength(150);
    const cost = carrying(documents, 'karpenter_nodepools_cost_total');
    expect(cost).toHaveLength(1);
    expect(cost[0].karpenter_nodepools_cost_total).toBe(0.5);
    expect(dimensionsOf(cost[0])).toEqual(['nodepool', 'service']);
    expect(cost[0].nodepool).toBe('default');
  });

  it('should publish nothing when nothing was recorded', () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    recorder.flush();
    // Assess
    expect(documents).toEqual([]);
  });

  it('should forget what it published, so a second flush publishes nothing', () => {
    // Prepare
    const { recorder, documents } = setup();
    recorder.count('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' });
    recorder.flush();
    // Act
    recorder.flush();
    // Assess
    expect(documents).toHaveLength(1);
  });

  it('should start each invocation afresh: a counter is not carried over to the next flush', () => {
    // Prepare
    const { recorder, documents } = setup();
    recorder.count('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' }, 4);
    recorder.flush();
    // Act
    recorder.count('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' });
    recorder.flush();
    // Assess
    expect(valuesOf(documents, 'karpenter_interruption_received_messages_total')).toEqual([4, 1]);
  });

  it('should observe a non-negative duration of the timed work and return its value', async () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    const out = await recorder.time('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'planned';
    });
    recorder.flush();
    // Assess
    expect(out).toBe('planned');
    const values = valuesOf(documents, 'karpenter_scheduler_scheduling_duration_seconds');
    expect(values).toHaveLength(1);
    expect(values[0]).toBeGreaterThanOrEqual(0);
    expect(values[0]).toBeLessThan(60);
  });

  it('should observe the duration of timed work that fails, and rethrow its error', async () => {
    // Prepare
    const { recorder, documents } = setup();
    // Act
    const timed = recorder.time('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, async () => {
      throw new Error('solver failed');
    });
    // Assess
    await expect(timed).rejects.toThrow('solver failed');
    recorder.flush();
    expect(valuesOf(documents, 'karpenter_scheduler_scheduling_duration_seconds')).toHaveLength(1);
  });
});

describe('teeMetrics', () => {
  it('should forward every recording to every recorder', async () => {
    // Prepare
    const a = new RecordingMetrics();
    const b = new RecordingMetrics();
    const tee = teeMetrics(a, b);
    // Act
    tee.count('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' }, 2);
    tee.gauge('karpenter_cluster_state_node_count', {}, 3);
    tee.gaugeSet('karpenter_nodepools_cost_total', [{ labels: { nodepool: 'default' }, value: 0.2 }]);
    tee.observe('karpenter_nodes_termination_duration_seconds', { nodepool: 'default' }, 12);
    const out = await tee.time('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, async () => 42);
    // Assess
    expect(out).toBe(42);
    for (const r of [a, b]) {
      expect(r.total('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' })).toBe(2);
      expect(r.gaugeValue('karpenter_cluster_state_node_count')).toBe(3);
      expect(r.gaugeValue('karpenter_nodepools_cost_total', { nodepool: 'default' })).toBe(0.2);
      expect(r.total('karpenter_nodes_termination_duration_seconds', { nodepool: 'default' })).toBe(12);
      const timed = r.matching('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' });
      expect(timed).toHaveLength(1);
      expect(timed[0].kind).toBe('observe');
      expect(timed[0].value).toBeGreaterThanOrEqual(0);
    }
  });

  it('should run timed work once, however many recorders there are', async () => {
    // Prepare
    const tee = teeMetrics(new RecordingMetrics(), new RecordingMetrics(), new RecordingMetrics());
    let runs = 0;
    // Act
    await tee.time('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, async () => ++runs);
    // Assess
    expect(runs).toBe(1);
  });

  it('should feed the EMF recorder, so what is recorded through the tee reaches CloudWatch', () => {
    // Prepare
    const { recorder, documents } = setup();
    const other = new RecordingMetrics();
    const tee = teeMetrics(recorder, other);
    // Act
    tee.count('karpenter_nodes_created_total', { nodepool: 'default', zone: 'eu-west-1a' });
    recorder.flush();
    // Assess
    expect(valuesOf(documents, 'karpenter_nodes_created_total')).toEqual([1]);
    expect(other.total('karpenter_nodes_created_total')).toBe(1);
  });
});

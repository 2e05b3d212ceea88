import { describe, expect, it } from 'vitest';
import { parseInterruptionMessage } from '../../../shared/core/interruption';
import { EventMalformedError } from '../../../shared/core/errors';
import { eventBody, eventFixture } from '../../fixtures/events';

describe('parseInterruptionMessage', () => {
  it('should classify a spot interruption warning with its instance and event id', () => {
    // Prepare
    const body = eventBody('spot-interruption-warning');
    // Act
    const message = parseInterruptionMessage(body);
    // Assess
    expect(message).toMatchObject({
      kind: 'SpotInterruption',
      eventId: '1e5527d7-bb36-4607-3370-4164db56a40e',
      instanceIds: ['i-0b2c3d4e5f6a7b8c9'],
      instanceAction: 'terminate',
      time: Date.parse('2026-11-21T23:40:00Z'),
    });
  });

  it('should classify a rebalance recommendation', () => {
    // Act
    const message = parseInterruptionMessage(eventBody('rebalance-recommendation'));
    // Assess
    expect(message).toMatchObject({ kind: 'RebalanceRecommendation', instanceIds: ['i-0b2c3d4e5f6a7b8c9'] });
  });

  it('should classify a stopping state change and filter a running one', () => {
    // Act
    const stopping = parseInterruptionMessage(eventBody('instance-state-change-stopping'));
    const running = parseInterruptionMessage(eventBody('instance-state-change-running'));
    // Assess
    expect(stopping).toMatchObject({ kind: 'InstanceStateChange', state: 'stopping', instanceIds: ['i-0b2c3d4e5f6a7b8c9'] });
    expect(running).toMatchObject({ kind: 'NoOp', reason: expect.stringContaining('running') });
  });

  it.each(['stopped', 'shutting-down', 'terminated'])('should classify a %s state change as an interruption', (state) => {
    // Prepare
    const event = eventFixture('instance-state-change-stopping');
    event.detail.state = state;
    // Act
    const message = parseInterruptionMessage(JSON.stringify(event));
    // Assess
    expect(message).toMatchObject({ kind: 'InstanceStateChange', state });
  });

  it('should list every affected instance of an EC2 scheduled change', () => {
    // Act
    const message = parseInterruptionMessage(eventBody('health-scheduled-change'));
    // Assess
    expect(message).toMatchObject({
      kind: 'ScheduledChange',
      instanceIds: ['i-0b2c3d4e5f6a7b8c9', 'i-0a1b2c3d4e5f60718'],
      eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
    });
  });

  it('should fall back to the event resources when a scheduled change lists no affected entities', () => {
    // Prepare
    const event = eventFixture('health-scheduled-change');
    delete event.detail.affectedEntities;
    // Act
    const message = parseInterruptionMessage(JSON.stringify(event));
    // Assess
    expect(message).toMatchObject({ kind: 'ScheduledChange', instanceIds: ['i-0b2c3d4e5f6a7b8c9', 'i-0a1b2c3d4e5f60718'] });
  });

  it('should drop AWS Health events of other services or categories', () => {
    // Prepare
    const ec2Issue = eventFixture('health-scheduled-change');
    ec2Issue.detail.eventTypeCategory = 'issue';
    // Act
    const ebs = parseInterruptionMessage(eventBody('health-issue-ebs'));
    const issue = parseInterruptionMessage(JSON.stringify(ec2Issue));
    // Assess
    expect(ebs).toMatchObject({ kind: 'NoOp', reason: expect.stringContaining('EBS') });
    expect(issue).toMatchObject({ kind: 'NoOp', reason: expect.stringContaining('issue') });
  });

  it('should classify a capacity reservation interruption', () => {
    // Act
    const message = parseInterruptionMessage(eventBody('capacity-reservation-interruption'));
    // Assess
    expect(message).toMatchObject({ kind: 'CapacityReservationInterruption', instanceIds: ['i-0b2c3d4e5f6a7b8c9'] });
  });

  it('should treat an unknown event kind as a no-op rather than an error', () => {
    // Act
    const message = parseInterruptionMessage(eventBody('autoscaling-launch-successful'));
    // Assess
    expect(message).toMatchObject({ kind: 'NoOp', reason: expect.stringContaining('aws.autoscaling') });
  });

  it('should reject a body that is not JSON with a named error', () => {
    // Act
    const parse = () => parseInterruptionMessage('{"version": "0", "id": ');
    // Assess
    expect(parse).toThrow(EventMalformedError);
    expect(parse).toThrow(/not JSON/);
  });

  it('should reject JSON that is not an EventBridge event, naming the missing field', () => {
    // Act
    const parse = () => parseInterruptionMessage(JSON.stringify({ hello: 'world' }));
    // Assess
    expect(parse).toThrow(/not an EventBridge event: .*detail-type/);
  });

  it('should reject a spot warning whose instance id is not an instance id', () => {
    // Prepare
    const event = eventFixture('spot-interruption-warning');
    event.detail['instance-id'] = 'vol-123';
    // Act
    const parse = () => parseInterruptionMessage(JSON.stringify(event));
    // Assess
    expect(parse).toThrow(/invalid spot interruption detail: instance-id: expected an EC2 instance id/);
  });
});

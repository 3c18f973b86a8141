import { outboxMessage as message, recordingProcessor as processor } from './event-bus.fixture';
import { InProcessEventBus } from './in-process-event-bus';

describe('InProcessEventBus', () => {
  it('gives each group the messages of its topics only', async () => {
    const bus = new InProcessEventBus();
    const audit = processor();
    const licensing = processor();
    bus.subscribe({
      groupId: 'audit',
      topics: ['recovery.events', 'billing.events'],
      processor: audit.processor,
    });
    bus.subscribe({ groupId: 'licensing', topics: ['billing.events'], processor: licensing.processor });
    const recovery = message('recovery.events');
    const billing = message('billing.events');
    await bus.deliver([recovery, billing]);
    expect(audit.applied.map((batch) => batch.map((event) => event.id))).toEqual([[recovery.id, billing.id]]);
    expect(licensing.applied.map((batch) => batch.map((event) => event.id))).toEqual([[billing.id]]);
  });

  it('fails the delivery when one group fails, after giving the batch to the others', async () => {
    const bus = new InProcessEventBus();
    const failing = processor(1);
    const healthy = processor();
    bus.subscribe({ groupId: 'failing', topics: ['billing.events'], processor: failing.processor });
    bus.subscribe({ groupId: 'healthy', topics: ['billing.events'], processor: healthy.processor });
    const batch = [message('billing.events')];
    await expect(bus.deliver(batch)).rejects.toThrow('1 consumer group(s) could not apply the batch');
    expect(healthy.applied).toHaveLength(1);
    // The relay's retry: the failed group gets it now (the healthy one skips it by event id).
    await bus.deliver(batch);
    expect(failing.applied).toHaveLength(1);
  });

  it('sets a message that is not an event aside without stopping the batch', async () => {
    const bus = new InProcessEventBus();
    const group = processor();
    bus.subscribe({ groupId: 'audit', topics: ['billing.events'], processor: group.processor });
    const broken = message('billing.events', '{"not":"an event"}');
    const good = message('billing.events');
    await bus.deliver([broken, good]);
    expect(group.malformed).toEqual([`outbox:billing.events/${broken.id}`]);
    expect(group.applied.flat().map((event) => event.id)).toEqual([good.id]);
  });

  it('holds deliveries until opened, so no event is relayed before its consumers subscribe', async () => {
    const bus = new InProcessEventBus();
    bus.hold();
    const delivered = bus.deliver([message('billing.events')]);
    const late = processor();
    bus.subscribe({ groupId: 'late', topics: ['billing.events'], processor: late.processor });
    bus.open();
    await delivered;
    expect(late.applied).toHaveLength(1);
  });

  it('stops delivering to a group that unsubscribed', async () => {
    const bus = new InProcessEventBus();
    const group = processor();
    const unsubscribe = bus.subscribe({
      groupId: 'gone',
      topics: ['billing.events'],
      processor: group.processor,
    });
    unsubscribe();
    await bus.deliver([message('billing.events')]);
    expect(group.applied).toHaveLength(0);
  });
});

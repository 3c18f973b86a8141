import { ALL_TOPICS, CONSUMER_GROUPS } from '@lib/contracts';
import { ensureTopics } from '@lib/messaging';
import type { DataSource } from 'typeorm';
import { testKafka } from './test-kafka';

/**
 * Earlier suites leave events in Kafka that the notifier group has not read (their notifier was
 * not running) and DMs the notifier recorded but could not send (no platform there). A suite that
 * starts a notifier to watch its own DMs skips both, as an operator would skip a stale backlog:
 * the group starts from the end of each topic, and stale pending DMs are set aside as failed.
 * Call it while no notifier is running.
 */
export async function skipNotifierBacklog(dataSource: DataSource): Promise<void> {
  const kafka = testKafka('test-backlog');
  // On a fresh broker no app has created the topics yet, and offsets of a missing topic cannot be set.
  await ensureTopics(kafka);
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const topic of ALL_TOPICS) {
      await admin.resetOffsets({
        groupId: kafka.named(CONSUMER_GROUPS.notifier),
        topic: kafka.named(topic),
        earliest: false,
      });
    }
  } finally {
    await admin.disconnect();
  }
  await dataSource.query(
    `UPDATE notification.notifications
        SET status = 'failed', last_error = 'set aside by the test suite that came next', updated_at = now()
      WHERE status = 'pending'`,
  );
}

import { Client, Connection } from '@temporalio/client';
import { v7 as uuidv7 } from 'uuid';
import {
  createRecoveryWorker,
  RECOVERY_TASK_QUEUE,
} from '../../apps/recovery/src/workflow-engine/temporal/recovery-worker';
import { checkTemporal } from '../../apps/recovery/src/workflow-engine/temporal/temporal.module';
import { createGreetingActivities } from '../fixtures/temporal/greeting.activities';

describe('recovery worker on the Temporal test server', () => {
  it('runs a workflow that calls an activity', async () => {
    const address = process.env.TEMPORAL_ADDRESS!;
    const connection = await Connection.connect({ address });
    await checkTemporal(connection);
    const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE! });
    const taskQueue = `${RECOVERY_TASK_QUEUE}-test-${uuidv7()}`;
    const worker = await createRecoveryWorker({
      address,
      namespace: process.env.TEMPORAL_NAMESPACE!,
      taskQueue,
      workflows: { workflowsPath: require.resolve('../fixtures/temporal/greeting.workflow') },
      activities: createGreetingActivities('Hello'),
    });
    try {
      const result = await worker.runUntil(
        client.workflow.execute('greetingWorkflow', {
          taskQueue,
          workflowId: `greeting-${uuidv7()}`,
          args: ['guild'],
        }),
      );
      expect(result).toBe('Hello, guild!');
    } finally {
      await connection.close();
    }
  });
});

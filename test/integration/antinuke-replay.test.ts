import { readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

/**
 * A run started by the AntiNuke workflow from before containment, recorded once from that code
 * (commit d3296e9, on the test Temporal server, its history encoded as `temporal.api.history.v1.History`):
 * one incident with auto-action on (the snapshot, then removeActorRoles, then the incident), then
 * detection removed. Today's workflow must replay it exactly, or every such run still open would
 * fail its next workflow task with a nondeterminism error.
 */
const HISTORY = path.join(__dirname, 'fixtures/antinuke-before-containment.history.bin');

describe('AntiNuke workflow replay', () => {
  const history = temporal.api.history.v1.History.decode(readFileSync(HISTORY));

  it('holds a history of the older order: snapshot first, removeActorRoles after, no containment marker', () => {
    const events = history.events ?? [];
    const activities = events
      .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter((name): name is string => typeof name === 'string');
    expect(activities).toEqual(['takeIncidentSnapshot', 'removeActorRoles', 'openIncident']);
    const patches = events
      .flatMap((event) => event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
      .map((payload) => (JSON.parse(Buffer.from(payload.data ?? []).toString()) as { id: string }).id);
    expect(patches).toContain('antinuke-incident-targets');
    expect(patches).not.toContain('antinuke-containment');
  });

  it('replays that run with today’s workflow code', async () => {
    await expect(
      Worker.runReplayHistory(
        { workflowsPath: require.resolve('../../apps/recovery/src/antinuke/workflows/antinuke.workflow') },
        history,
      ),
    ).resolves.toBeUndefined();
  }, 120_000);
});

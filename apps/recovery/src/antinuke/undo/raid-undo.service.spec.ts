import type { ChatPlatformClient } from '@lib/chat-platform';
import type { GuildRegistry } from '../../guilds/guild-registry.service';
import type { SnapshotService } from '../../snapshots/snapshot.service';
import type { ChangeJournalRepository } from '../../sync/change-journal.repository';
import type { RaidUndoRepository } from './raid-undo.repository';
import { RaidUndoService } from './raid-undo.service';

/** The service over an incident of `action` that names no raider; the other collaborators as given. */
function withoutRaider(
  action: string,
  platform: Partial<ChatPlatformClient>,
  registry: Partial<GuildRegistry> = {},
) {
  return new RaidUndoService(
    {
      incident: () =>
        Promise.resolve({
          action,
          actor_platform_user_id: null,
          first_action_at: new Date(),
          undo_snapshot_id: null,
        }),
    } as unknown as RaidUndoRepository,
    {} as ChangeJournalRepository,
    registry as GuildRegistry,
    platform as ChatPlatformClient,
    {} as SnapshotService,
  );
}

describe(RaidUndoService.name, () => {
  it('refuses a removal of the bot that names no raider while the bot is still out, reading nothing', async () => {
    const platform = { getGuildState: jest.fn(), readAuditLog: jest.fn(), getCurrentUser: jest.fn() };
    const service = withoutRaider('bot_removed', platform, {
      get: () => Promise.resolve({ id: 'guild-1', platformGuildId: '5', removedAt: new Date() }),
    } as unknown as GuildRegistry);
    await expect(service.undo('guild-1', 'incident-1')).rejects.toMatchObject({
      code: 'ErrIncidentWithoutRaider',
      status: 409,
    });
    expect(platform.readAuditLog).not.toHaveBeenCalled();
    expect(platform.getGuildState).not.toHaveBeenCalled();
  });

  it('refuses an incident that names no raider, reading nothing of the guild', async () => {
    const platform = { getGuildState: jest.fn() };
    const service = withoutRaider('channel_delete', platform);
    await expect(service.undo('guild-1', 'incident-1')).rejects.toMatchObject({
      code: 'ErrIncidentWithoutRaider',
      status: 409,
    });
    expect(platform.getGuildState).not.toHaveBeenCalled();
  });
});

import { GuildAccessChanges } from './guild-access-changes';
import type { GuildsRepository } from './guilds.repository';

describe(GuildAccessChanges.name, () => {
  function sut() {
    const moved: string[] = [];
    const guilds = {
      moveAccessGeneration: (id: string) => Promise.resolve(void moved.push(id)),
    } as unknown as GuildsRepository;
    return { changes: new GuildAccessChanges(guilds), moved };
  }

  it('moves the guild’s access generation on the changes that can alter a member’s permissions', () => {
    const { changes, moved } = sut();
    const accessChanging = [
      'member_update',
      'member_remove',
      'member_ban',
      'role_update',
      'role_delete',
      'guild_settings_update',
    ];
    for (const type of accessChanging) changes.notice({ type, platformGuildId: type });
    expect(moved).toEqual(accessChanging);
  });

  it('leaves it for everything else', () => {
    const { changes, moved } = sut();
    for (const type of [
      'role_create',
      'channel_update',
      'channel_delete',
      'audit_log_entry',
      'guild_available',
    ]) {
      changes.notice({ type, platformGuildId: '1' });
    }
    changes.notice({ type: 'ready' });
    expect(moved).toEqual([]);
  });
});

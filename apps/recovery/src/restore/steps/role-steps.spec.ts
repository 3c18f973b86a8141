import { CHANNEL_TYPE, type PermissionOverride } from '@lib/chat-platform';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import { guildState, platformChannel, platformRole } from '../../sync/guild-state.fixture';
import { byChannelNeed } from './role-steps';

function override(channelId: string, roleId: string): PermissionOverride {
  return { channel_id: channelId, id: roleId, type: 'role', allow: '1024', deny: '0' };
}

/** A snapshot with these channels (in this order) and overwrites. */
function snapshot(channels: SnapshotPayload['channels'], overrides: PermissionOverride[]): SnapshotPayload {
  return {
    ...guildState(),
    version: 1,
    snapshot_at: '2026-11-27T00:00:00.000Z',
    channels,
    permission_overrides: overrides,
  };
}

describe(byChannelNeed.name, () => {
  const roles = ['r1', 'r2', 'r3', 'r4'].map((id) => platformRole(id));
  const ids = (ordered: { id: string }[]) => ordered.map((role) => role.id);

  it('puts first the roles the first channels name, categories before the others', () => {
    const target = snapshot(
      [
        platformChannel('text-a'),
        platformChannel('cat', { type: CHANNEL_TYPE.category }),
        platformChannel('text-b'),
      ],
      [override('text-b', 'r1'), override('text-a', 'r2'), override('cat', 'r3')],
    );
    // The category is made first, then text-a, then text-b; r4 is named by no channel.
    expect(ids(byChannelNeed(target, roles))).toEqual(['r3', 'r2', 'r1', 'r4']);
  });

  it('keeps the given order among roles no channel names, and ignores member overwrites', () => {
    const target = snapshot(
      [platformChannel('text-a')],
      [{ channel_id: 'text-a', id: 'r1', type: 'member', allow: '0', deny: '0' }, override('text-a', 'r4')],
    );
    expect(ids(byChannelNeed(target, roles))).toEqual(['r4', 'r1', 'r2', 'r3']);
  });
});

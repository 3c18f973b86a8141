import { CHANNEL_TYPE, type PermissionOverride, type PlatformRole } from '@lib/chat-platform';
import { uniquePng } from '../../../../../test/support/expression-raid';
import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import type { SnapshotPayload } from '../../snapshots/snapshot-payload';
import { guildState, platformChannel, platformRole } from '../../sync/guild-state.fixture';
import { byChannelNeed, createOrUpdateRoles } from './role-steps';

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

/** CreateOrUpdateRoles against the sandbox platform. */
describe(createOrUpdateRoles.name, () => {
  const sandbox = stepSandbox();
  const fields = (role: PlatformRole) => ({
    name: role.name,
    permissions: role.permissions,
    colors: role.colors,
    hoist: role.hoist,
    mentionable: role.mentionable,
  });

  it('makes a deleted role again, records where it is now, and sets a changed one back', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    await sandbox.client.deleteRole(seeded.guildId, seeded.roles.VIP);
    await sandbox.client.updateRole(seeded.guildId, seeded.roles.Helper, { name: 'pwned', hoist: false });

    const run = await sandbox.runToEnd(createOrUpdateRoles, seeded.guildId, target, ['roles']);

    expect([run.created, run.updated]).toEqual([1, 1]);
    const live = await sandbox.state(seeded.guildId);
    const byName = (roles: PlatformRole[], name: string) => roles.find((role) => role.name === name)!;
    expect(fields(byName(live.roles, 'VIP'))).toEqual(fields(byName(target.roles, 'VIP')));
    expect(byName(live.roles, 'VIP').id).not.toBe(seeded.roles.VIP);
    expect(fields(live.roles.find((role) => role.id === seeded.roles.Helper)!)).toEqual(
      fields(byName(target.roles, 'Helper')),
    );
  });

  it('puts role icons back from the kept images: a deleted role’s, a changed one, an added one removed', async () => {
    const icons = { VIP: uniquePng(), Helper: uniquePng() };
    const seeded = sandbox.seed((spec) => {
      spec.roles = spec.roles!.map((role) =>
        role.name === 'VIP' || role.name === 'Helper' ? { ...role, icon: icons[role.name] } : role,
      );
    });
    const target = await sandbox.snapshot(seeded.guildId);
    expect(Object.keys(target.role_icons!).sort()).toEqual([seeded.roles.VIP, seeded.roles.Helper].sort());
    const raiderIcon = `data:image/png;base64,${uniquePng().toString('base64')}`;
    const { client } = sandbox;
    await client.deleteRole(seeded.guildId, seeded.roles.VIP);
    await client.updateRole(seeded.guildId, seeded.roles.Helper, { icon: raiderIcon });
    await client.updateRole(seeded.guildId, seeded.roles.Member, { icon: raiderIcon });

    const run = await sandbox.runToEnd(createOrUpdateRoles, seeded.guildId, target, ['roles']);

    expect([run.created, run.updated]).toEqual([1, 2]);
    const live = await sandbox.state(seeded.guildId);
    const byName = (name: string) => live.roles.find((role) => role.name === name)!;
    for (const name of ['VIP', 'Helper'] as const) {
      const role = byName(name);
      expect(role.icon).not.toBeNull();
      expect((await client.readRoleIcon(role.id, role.icon!)).bytes.equals(icons[name])).toBe(true);
    }
    expect(byName('Member').icon).toBeNull();
    // Nothing is left to do.
    const again = await sandbox.runToEnd(createOrUpdateRoles, seeded.guildId, target, ['roles']);
    expect([again.created, again.updated]).toEqual([0, 0]);
  });
});

import { CHANNEL_TYPE } from '@lib/chat-platform';
import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { deleteRemovedChannels, deleteRemovedOverrides, deleteRemovedRoles, liftBans } from './removal-steps';

/** The removal steps against the sandbox platform: what came after the snapshot goes, nothing else. */
describe('removal steps', () => {
  const sandbox = stepSandbox();

  it('DeleteRemovedChannels deletes the channels made since, a category after what was in it', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    const { client } = sandbox;
    const category = await client.createChannel(seeded.guildId, {
      name: 'raid',
      type: CHANNEL_TYPE.category,
    });
    await client.createChannel(seeded.guildId, {
      name: 'spam-1',
      type: CHANNEL_TYPE.text,
      parent_id: category.id,
    });
    await client.createChannel(seeded.guildId, { name: 'spam-2', type: CHANNEL_TYPE.text });

    const run = await sandbox.runToEnd(deleteRemovedChannels, seeded.guildId, target, ['channels']);

    expect(run.deleted).toBe(3);
    // The category's child goes in the first call; the category, empty by then, in the next.
    expect(run.calls.map((call) => call.deleted)).toEqual([2, 1]);
    const live = await sandbox.state(seeded.guildId);
    expect(live.channels.map((channel) => channel.id).sort()).toEqual(
      target.channels.map((channel) => channel.id).sort(),
    );
  });

  it('DeleteRemovedRoles deletes the roles made since and keeps the others', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    await sandbox.client.createRole(seeded.guildId, { name: 'raider' });

    const run = await sandbox.runToEnd(deleteRemovedRoles, seeded.guildId, target, ['roles']);

    expect(run.deleted).toBe(1);
    const live = await sandbox.state(seeded.guildId);
    expect(live.roles.map((role) => role.name).sort()).toEqual(target.roles.map((role) => role.name).sort());
  });

  it('DeleteRemovedOverrides removes an overwrite the snapshot does not have', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    const general = seeded.channels.general;
    await sandbox.client.putPermissionOverride({
      channel_id: general,
      id: seeded.roles.Helper,
      type: 'role',
      allow: '0',
      deny: '1024',
    });

    const run = await sandbox.runToEnd(deleteRemovedOverrides, seeded.guildId, target, [
      'permission_overrides',
    ]);

    expect(run.deleted).toBe(1);
    const live = await sandbox.state(seeded.guildId);
    const overwrites = (state: { permission_overrides: { channel_id: string }[] }) =>
      state.permission_overrides.filter((o) => o.channel_id === general);
    expect(overwrites(live)).toEqual(overwrites(target));
  });

  it('LiftBans lifts the bans made since, leaving the earlier ones', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    await sandbox.client.banMember(seeded.guildId, seeded.members.alice);

    const run = await sandbox.runToEnd(liftBans, seeded.guildId, target, ['bans']);

    expect(run.deleted).toBe(1);
    const bans = await sandbox.client.listBans(seeded.guildId);
    expect(bans.map((ban) => ban.user.id).sort()).toEqual(target.bans!.map((ban) => ban.user_id).sort());
  });
});

import type { GuildState } from '@lib/chat-platform';
import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { applyPermissionOverrides } from './override-steps';

/** ApplyPermissionOverrides against the sandbox platform. */
describe(applyPermissionOverrides.name, () => {
  const sandbox = stepSandbox();
  const overwritesOf = (state: GuildState, channelId: string) =>
    state.permission_overrides
      .filter((o) => o.channel_id === channelId)
      .sort((a, b) => a.id.localeCompare(b.id));

  it("puts back a channel's removed and changed overwrites", async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    const modLog = seeded.channels['mod-log'];
    const [first, second] = overwritesOf(target, modLog);
    await sandbox.client.deletePermissionOverride(modLog, first.id);
    await sandbox.client.putPermissionOverride({ ...second, allow: '0', deny: '0' });

    const run = await sandbox.runToEnd(applyPermissionOverrides, seeded.guildId, target, [
      'permission_overrides',
    ]);

    expect(run.created).toBe(2);
    expect(overwritesOf(await sandbox.state(seeded.guildId), modLog)).toEqual(overwritesOf(target, modLog));
  });
});

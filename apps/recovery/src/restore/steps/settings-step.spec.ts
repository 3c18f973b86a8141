import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { updateGuildSettings } from './settings-step';

/** UpdateGuildSettings against the sandbox platform. */
describe(updateGuildSettings.name, () => {
  const sandbox = stepSandbox();

  it('sets the changed settings back in one call, a channel setting included', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    await sandbox.client.updateGuildSettings(seeded.guildId, {
      name: 'RAIDED',
      system_channel_id: seeded.channels.general,
    });

    const run = await sandbox.runToEnd(updateGuildSettings, seeded.guildId, target, ['guild_settings']);

    expect(run.calls.map((call) => call.updated)).toEqual([2]);
    const live = await sandbox.state(seeded.guildId);
    expect(live.guild.name).toBe(target.guild.name);
    expect(live.guild.system_channel_id).toBe(seeded.channels.welcome);
  });
});

import type { GuildState } from '@lib/chat-platform';
import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { createOrUpdateChannels } from './channel-steps';

/** CreateOrUpdateChannels against the sandbox platform. */
describe(createOrUpdateChannels.name, () => {
  const sandbox = stepSandbox();

  /** A channel by name: its name, type, topic, its category's name and its overwrites' targets. */
  function described(state: GuildState, name: string) {
    const channel = state.channels.find((c) => c.name === name)!;
    const parent = state.channels.find((c) => c.id === channel.parent_id);
    const overwrites = state.permission_overrides
      .filter((o) => o.channel_id === channel.id)
      .map((o) => [o.type, o.allow, o.deny])
      .sort();
    return { name: channel.name, type: channel.type, topic: channel.topic, parent: parent?.name, overwrites };
  }

  it('makes a deleted category and its channels again, each in it with its overwrites', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    const staff = target.channels.filter((c) => c.parent_id === seeded.channels.Staff).map((c) => c.name);
    for (const name of staff) await sandbox.client.deleteChannel(seeded.channels[name]);
    await sandbox.client.deleteChannel(seeded.channels.Staff);

    const run = await sandbox.runToEnd(createOrUpdateChannels, seeded.guildId, target, ['channels']);

    expect(run.created).toBe(staff.length + 1);
    const live = await sandbox.state(seeded.guildId);
    for (const name of ['Staff', ...staff]) expect(described(live, name)).toEqual(described(target, name));
    expect(live.channels.find((c) => c.name === 'Staff')!.id).not.toBe(seeded.channels.Staff);
  });

  it('sets a changed channel back in one edit', async () => {
    const seeded = sandbox.seed();
    const target = await sandbox.snapshot(seeded.guildId);
    await sandbox.client.updateChannel(seeded.channels.rules, { name: 'raided', topic: 'gone' });

    const run = await sandbox.runToEnd(createOrUpdateChannels, seeded.guildId, target, ['channels']);

    expect(run.updated).toBe(1);
    const live = await sandbox.state(seeded.guildId);
    expect(described(live, 'rules')).toEqual(described(target, 'rules'));
  });
});

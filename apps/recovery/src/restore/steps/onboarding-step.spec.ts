import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { comparableWelcomeFlow, withDemoWelcomeFlow } from '../../../../../test/support/welcome-flow-raid';
import { readWelcomeFlow } from '../../snapshots/welcome-flow.reader';
import { restoreOnboarding } from './onboarding-step';

/** RestoreOnboarding against the sandbox platform. */
describe('the welcome screen and onboarding step', () => {
  const sandbox = stepSandbox();

  async function flowOf(guildId: string) {
    const read = await readWelcomeFlow(sandbox.client, await sandbox.client.getGuild(guildId));
    if ('unreadable' in read) throw new Error(read.unreadable);
    return read;
  }

  it('puts back both as the snapshot has them, once: a second run has nothing to write', async () => {
    const guild = sandbox.seed(withDemoWelcomeFlow);
    const target = await sandbox.snapshot(guild.guildId);
    const { guildId } = guild;
    const [first, second] = target.onboarding!.prompts;
    await sandbox.client.modifyWelcomeScreen(guildId, { enabled: false, description: 'Hacked' });
    await sandbox.client.modifyOnboarding(guildId, {
      ...target.onboarding!,
      // One prompt removed, one changed, one of the raider's added; fewer default channels.
      prompts: [
        { ...first, title: 'Raided', required: true },
        { ...second, id: '1300000000000000001' },
      ],
      default_channel_ids: [guild.channels.general],
      enabled: false,
      mode: 1,
    });

    const run = await sandbox.runToEnd(restoreOnboarding, guildId, target, ['onboarding']);
    // A prompt made and one removed; one set back, the onboarding's own fields, the welcome screen.
    expect({ created: run.created, updated: run.updated, deleted: run.deleted }).toEqual({
      created: 1,
      updated: 3,
      deleted: 1,
    });
    expect(comparableWelcomeFlow(await flowOf(guildId))).toEqual(comparableWelcomeFlow(target));
    const before = sandbox.platform.auditLog(guildId).length;
    const again = await sandbox.runToEnd(restoreOnboarding, guildId, target, ['onboarding']);
    expect(again.created + again.updated + again.deleted).toBe(0);
    expect(sandbox.platform.auditLog(guildId)).toHaveLength(before);
  });

  it('leaves out what is gone and not restored, and puts back disabled an onboarding short of channels', async () => {
    const guild = sandbox.seed(withDemoWelcomeFlow);
    const target = await sandbox.snapshot(guild.guildId);
    const { guildId, channels, emojis } = guild;
    await sandbox.client.modifyOnboarding(guildId, { ...target.onboarding!, enabled: false, prompts: [] });
    await sandbox.client.modifyWelcomeScreen(guildId, { welcome_channels: [] });
    await sandbox.client.deleteEmoji(guildId, emojis.wave);
    await sandbox.client.deleteChannel(channels.events);

    const run = await sandbox.runToEnd(restoreOnboarding, guildId, target, ['onboarding']);
    expect(run.calls[0]).toMatchObject({ created: 2, remaining: 0 });
    const now = await flowOf(guildId);
    expect(now.welcome_screen!.welcome_channels).toEqual([
      { channel_id: channels.rules, description: 'Read the rules', emoji_id: null, emoji_name: '📜' },
      { channel_id: channels.introductions, description: 'Say hello', emoji_id: null, emoji_name: null },
    ]);
    expect(now.onboarding.enabled).toBe(false);
    expect(now.onboarding.default_channel_ids).not.toContain(channels.events);
    expect(now.onboarding.prompts[0].options[0].channel_ids).toEqual([]);
  });
});

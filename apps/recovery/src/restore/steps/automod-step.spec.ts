import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { meaningful } from '../diff/automod-diff';
import { restoreAutoModRules } from './automod-step';

/** RestoreAutoModRules against the sandbox platform. */
describe('the AutoMod rules step', () => {
  const sandbox = stepSandbox();

  function seed() {
    return sandbox.seed((spec) => {
      spec.setup = {
        autoModRules: [
          { name: 'No links', exemptRoles: ['Member'], exemptChannels: ['general'] },
          { name: 'No mention storms', trigger_type: 5 },
          { name: 'Bad words', trigger_metadata: { keyword_filter: ['nuke'] } },
        ],
      };
    });
  }

  const comparable = (rules: Awaited<ReturnType<typeof sandbox.client.listAutoModRules>>) =>
    rules
      .map(({ id: _id, ...rule }) => meaningful(rule) as typeof rule)
      .sort((a, b) => a.name.localeCompare(b.name));

  it('puts back deleted and changed rules with their exemptions, and deletes a raider’s', async () => {
    const guild = seed();
    const target = await sandbox.snapshot(guild.guildId);
    const before = comparable(await sandbox.client.listAutoModRules(guild.guildId));
    const { setup } = guild;
    await sandbox.client.deleteAutoModRule(guild.guildId, setup.autoModRules['No links']);
    await sandbox.client.updateAutoModRule(guild.guildId, setup.autoModRules['Bad words'], {
      enabled: false,
      trigger_metadata: { keyword_filter: [], regex_patterns: ['.*'], allow_list: [] },
    });
    // The raider's own rule fills the one MENTION_SPAM place after deleting the guild's.
    await sandbox.client.deleteAutoModRule(guild.guildId, setup.autoModRules['No mention storms']);
    await sandbox.client.createAutoModRule(guild.guildId, {
      name: 'raider',
      event_type: 1,
      trigger_type: 5,
      trigger_metadata: { mention_total_limit: 50, mention_raid_protection_enabled: false },
      actions: [{ type: 1, metadata: {} }],
      enabled: false,
      exempt_roles: [],
      exempt_channels: [],
    });

    const run = await sandbox.runToEnd(restoreAutoModRules, guild.guildId, target, ['automod']);
    expect({ created: run.created, updated: run.updated, deleted: run.deleted }).toEqual({
      created: 2,
      updated: 1,
      deleted: 1,
    });
    expect(comparable(await sandbox.client.listAutoModRules(guild.guildId))).toEqual(before);
    const again = await sandbox.runToEnd(restoreAutoModRules, guild.guildId, target, ['automod']);
    expect(again.created + again.updated + again.deleted).toBe(0);
  });

  it('takes over a rule an earlier attempt made instead of making it twice', async () => {
    const guild = seed();
    const target = await sandbox.snapshot(guild.guildId);
    const [rule] = target.automod_rules!.filter((candidate) => candidate.name === 'No links');
    await sandbox.client.deleteAutoModRule(guild.guildId, rule.id);
    // The earlier attempt's rule, whose new id was never recorded.
    const { id: _id, ...fields } = rule;
    await sandbox.client.createAutoModRule(guild.guildId, fields);

    const run = await sandbox.runToEnd(restoreAutoModRules, guild.guildId, target, ['automod']);
    expect({ created: run.created, deleted: run.deleted }).toEqual({ created: 1, deleted: 0 });
    const names = (await sandbox.client.listAutoModRules(guild.guildId)).map((candidate) => candidate.name);
    expect(names.filter((name) => name === 'No links')).toHaveLength(1);
  });
});

import type { GuildState } from '@lib/chat-platform';
import { RAIDER_PNG } from '../../../../../test/support/expression-raid';
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

  it('sets back a voice channel’s region and camera quality and a text channel’s archive time', async () => {
    const seeded = sandbox.seed();
    await sandbox.client.updateChannel(seeded.channels.Lounge, {
      rtc_region: 'japan',
      video_quality_mode: 2,
    });
    await sandbox.client.updateChannel(seeded.channels.general, { default_auto_archive_duration: 60 });
    const target = await sandbox.snapshot(seeded.guildId);
    await sandbox.client.updateChannel(seeded.channels.Lounge, { rtc_region: null, video_quality_mode: 1 });
    await sandbox.client.updateChannel(seeded.channels.general, { default_auto_archive_duration: 4320 });

    const run = await sandbox.runToEnd(createOrUpdateChannels, seeded.guildId, target, ['channels']);

    expect(run.updated).toBe(2);
    const live = await sandbox.state(seeded.guildId);
    const fields = (state: GuildState) => {
      const lounge = state.channels.find((c) => c.name === 'Lounge')!;
      const general = state.channels.find((c) => c.name === 'general')!;
      return [lounge.rtc_region, lounge.video_quality_mode, general.default_auto_archive_duration];
    };
    expect(fields(live)).toEqual(['japan', 2, 60]);
    expect(fields(live)).toEqual(fields(target));
  });

  describe('forum channels', () => {
    const image = `data:image/png;base64,${RAIDER_PNG.toString('base64')}`;
    const forumFields = (state: GuildState, name: string) => {
      const forum = state.channels.find((c) => c.name === name)!;
      return {
        tags: forum.available_tags!.map(({ id: _id, ...tag }) => tag),
        reaction: forum.default_reaction_emoji,
        order: forum.default_sort_order,
        layout: forum.default_forum_layout,
        slowMode: forum.default_thread_rate_limit_per_user,
        flags: forum.flags,
        archive: forum.default_auto_archive_duration,
      };
    };

    /** The demo guild's forum with tags (a unicode emoji, a custom one, a moderated one) and its defaults. */
    async function taggedForum() {
      const seeded = sandbox.seed();
      const emoji = await sandbox.client.createEmoji(seeded.guildId, { name: 'idea', image, roles: [] });
      await sandbox.client.updateChannel(seeded.channels.suggestions, {
        available_tags: [
          { name: 'bug', moderated: false, emoji_id: null, emoji_name: '🐛' },
          { name: 'idea', moderated: false, emoji_id: emoji.id, emoji_name: null },
          { name: 'done', moderated: true, emoji_id: null, emoji_name: null },
        ],
        default_reaction_emoji: { emoji_id: emoji.id, emoji_name: null },
        default_sort_order: 1,
        default_forum_layout: 2,
        default_thread_rate_limit_per_user: 60,
        default_auto_archive_duration: 10080,
        flags: 1 << 4,
      });
      return { seeded, emoji, target: await sandbox.snapshot(seeded.guildId) };
    }

    it('makes a deleted forum again with its tags, their emojis and its defaults', async () => {
      const { seeded, target } = await taggedForum();
      await sandbox.client.deleteChannel(seeded.channels.suggestions);

      const run = await sandbox.runToEnd(createOrUpdateChannels, seeded.guildId, target, ['channels']);

      // Created, then its flags (requiring a tag) set by an edit: a create does not take them.
      expect([run.created, run.updated]).toEqual([1, 1]);
      const live = await sandbox.state(seeded.guildId);
      expect(forumFields(live, 'suggestions')).toEqual(forumFields(target, 'suggestions'));
      // The id map follows each tag to its new id.
      const tagIds = (state: GuildState) =>
        state.channels.find((c) => c.name === 'suggestions')!.available_tags!.map((tag) => tag.id);
      const tagMap = sandbox.recorded.filter(
        (r) => r.kind === 'forum_tag' && tagIds(target).includes(r.original_id),
      );
      expect(tagMap.map((r) => [r.original_id, r.replacement_id])).toEqual(
        tagIds(target).map((id, i) => [id, tagIds(live)[i]]),
      );
    });

    it('sets changed tags back in one edit, a tag that stayed keeping its id', async () => {
      const { seeded, target } = await taggedForum();
      const before = (await sandbox.state(seeded.guildId)).channels.find((c) => c.name === 'suggestions')!;
      const bug = before.available_tags!.find((tag) => tag.name === 'bug')!;
      await sandbox.client.updateChannel(seeded.channels.suggestions, {
        available_tags: [{ ...bug }, { name: 'raided', moderated: false, emoji_id: null, emoji_name: null }],
        default_reaction_emoji: null,
        default_sort_order: 0,
      });

      const run = await sandbox.runToEnd(createOrUpdateChannels, seeded.guildId, target, ['channels']);

      expect(run.updated).toBe(1);
      const live = await sandbox.state(seeded.guildId);
      expect(forumFields(live, 'suggestions')).toEqual(forumFields(target, 'suggestions'));
      const tags = live.channels.find((c) => c.name === 'suggestions')!.available_tags!;
      expect(tags.find((tag) => tag.name === 'bug')!.id).toBe(bug.id);
    });

    it('makes a forum whose custom emoji is gone without that emoji, and says so', async () => {
      const { seeded, emoji, target } = await taggedForum();
      await sandbox.client.deleteChannel(seeded.channels.suggestions);
      await sandbox.client.deleteEmoji(seeded.guildId, emoji.id);

      const run = await sandbox.runToEnd(createOrUpdateChannels, seeded.guildId, target, ['channels']);

      expect(run.created).toBe(1);
      const fields = forumFields(await sandbox.state(seeded.guildId), 'suggestions');
      expect(fields.tags.find((tag) => tag.name === 'idea')).toEqual({
        name: 'idea',
        moderated: false,
        emoji_id: null,
        emoji_name: null,
      });
      expect(fields.reaction).toBeNull();
      expect(run.preview.clamped.map((item) => [item.name, item.field, item.snapshot_value])).toEqual([
        ['suggestions', 'available_tags', emoji.id],
        ['suggestions', 'default_reaction_emoji', emoji.id],
      ]);
    });
  });
});

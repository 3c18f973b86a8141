import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { restoreEmojis, restoreStickers } from './expression-steps';
import { restoreGuildImages } from './guild-images-step';

/** A 1x1 PNG of another colour than the fake's default image: a raider's upload. */
const RAIDER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC',
  'base64',
);

/** The emoji, sticker and guild image steps against the sandbox platform. */
describe('the expression steps', () => {
  const sandbox = stepSandbox();

  async function emojis(guildId: string) {
    return (await sandbox.client.listEmojis(guildId)).map(({ name, animated, roles }) => ({
      name,
      animated,
      roles,
    }));
  }

  it('puts back deleted emojis with their images and roles, renames, and deletes a raider’s', async () => {
    const guild = sandbox.seed();
    const party = sandbox.platform.addEmoji(guild.guildId, 'party');
    await sandbox.client.updateEmoji(guild.guildId, party, { roles: [guild.roles.Member] });
    sandbox.platform.addEmoji(guild.guildId, 'dance', { animated: true });
    const wave = sandbox.platform.addEmoji(guild.guildId, 'wave');
    const target = await sandbox.snapshot(guild.guildId);
    const before = await emojis(guild.guildId);

    await sandbox.client.deleteEmoji(guild.guildId, party);
    await sandbox.client.updateEmoji(guild.guildId, wave, { name: 'nuked' });
    sandbox.platform.addEmoji(guild.guildId, 'party', {
      image: { bytes: RAIDER_PNG, contentType: 'image/png' },
    });

    const run = await sandbox.runToEnd(restoreEmojis, guild.guildId, target, ['emojis']);
    expect({ created: run.created, updated: run.updated, deleted: run.deleted }).toEqual({
      created: 1,
      updated: 1,
      deleted: 1,
    });
    expect(await emojis(guild.guildId)).toEqual(expect.arrayContaining(before));
    expect(await emojis(guild.guildId)).toHaveLength(before.length);
    // The recreated emoji's image is the snapshot's, read back from the CDN.
    const again = await sandbox.snapshot(guild.guildId);
    expect(again.emojis!.map((emoji) => emoji.image).sort()).toEqual(
      target.emojis!.map((emoji) => emoji.image).sort(),
    );
    // Run again: nothing left to do.
    const second = await sandbox.runToEnd(restoreEmojis, guild.guildId, target, ['emojis']);
    expect(second.created + second.updated + second.deleted).toBe(0);
  });

  it('takes over an emoji an earlier attempt made instead of making it twice', async () => {
    const guild = sandbox.seed();
    const party = sandbox.platform.addEmoji(guild.guildId, 'party');
    const target = await sandbox.snapshot(guild.guildId);
    await sandbox.client.deleteEmoji(guild.guildId, party);
    // The earlier attempt's upload (same image), whose new id was never recorded.
    sandbox.platform.addEmoji(guild.guildId, 'party');

    const run = await sandbox.runToEnd(restoreEmojis, guild.guildId, target, ['emojis']);
    expect({ created: run.created, deleted: run.deleted }).toEqual({ created: 1, deleted: 0 });
    expect((await sandbox.client.listEmojis(guild.guildId)).map((emoji) => emoji.name)).toEqual(['party']);
  });

  it('puts back deleted stickers from their files and restores a changed description', async () => {
    const guild = sandbox.seed();
    const hello = sandbox.platform.addSticker(guild.guildId, 'hello');
    const bye = sandbox.platform.addSticker(guild.guildId, 'bye');
    const target = await sandbox.snapshot(guild.guildId);
    await sandbox.client.deleteSticker(guild.guildId, hello);
    await sandbox.client.updateSticker(guild.guildId, bye, { description: 'defaced' });

    const run = await sandbox.runToEnd(restoreStickers, guild.guildId, target, ['stickers']);
    expect({ created: run.created, updated: run.updated }).toEqual({ created: 1, updated: 1 });
    const stickers = await sandbox.client.listStickers(guild.guildId);
    const strip = ({ name, description, tags, format_type }: (typeof stickers)[number]) => ({
      name,
      description: description ?? '',
      tags,
      format_type,
    });
    expect(stickers.map(strip).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      target.stickers!.map(strip).sort((a, b) => a.name.localeCompare(b.name)),
    );
  });

  it('puts the guild’s icon back and sees it as restored afterwards', async () => {
    const guild = sandbox.seed();
    const icon = `data:image/png;base64,${RAIDER_PNG.toString('base64')}`;
    await sandbox.client.updateGuildSettings(guild.guildId, { icon });
    const target = await sandbox.snapshot(guild.guildId);
    expect(target.guild_images?.icon).toMatch(/^[0-9a-f]{64}$/);
    await sandbox.client.updateGuildSettings(guild.guildId, { icon: null });

    const run = await sandbox.runToEnd(restoreGuildImages, guild.guildId, target, ['guild_images']);
    expect(run.updated).toBe(1);
    const after = await sandbox.snapshot(guild.guildId);
    expect(after.guild_images?.icon).toBe(target.guild_images?.icon);
    const second = await sandbox.runToEnd(restoreGuildImages, guild.guildId, target, ['guild_images']);
    expect(second.updated).toBe(0);
  });
});

import type { ReadExpressions } from './guild-expressions.reader';
import { fitImageQuota, OVER_IMAGE_QUOTA } from './image-quota';

const digest = (c: string) => c.repeat(64);
const image = (c: string, size: number) => ({
  digest: digest(c),
  bytes: Buffer.alloc(size),
  content_type: 'image/png',
});

/** A guild with an icon (10 bytes), two new emojis (40, 30), a kept one, and a sticker (50). */
function read(): ReadExpressions {
  return {
    parts: {
      guild_images: { icon: digest('a') },
      emojis: [
        { id: '1', name: 'big', animated: false, roles: [], image: digest('b') },
        { id: '2', name: 'small', animated: false, roles: [], image: digest('c') },
        { id: '3', name: 'kept', animated: false, roles: [], image: digest('d') },
      ],
      stickers: [
        { id: '4', name: 'wave', description: null, tags: 'wave', format_type: 1, image: digest('e') },
      ],
    },
    fetched: [image('a', 10), image('b', 40), image('c', 30), image('e', 50)],
    kept: [digest('d')],
  };
}

describe(fitImageQuota.name, () => {
  it('keeps every new image that fits, the guild’s own first, and names the rest null', () => {
    const fitted = fitImageQuota(read(), 20, 100);
    // 20 used + icon 10 + big 40 = 70; small (30) fits too: 100; the sticker does not.
    expect(fitted.fetched.map((kept) => kept.digest)).toEqual([digest('a'), digest('b'), digest('c')]);
    expect(fitted.parts.stickers[0].image).toBeNull();
    expect(fitted.parts.emojis.map((emoji) => emoji.image)).toEqual([digest('b'), digest('c'), digest('d')]);
    expect(fitted.imagesOmitted).toBe(OVER_IMAGE_QUOTA(100));
  });

  it('keeps the images the guild holds already when nothing new fits (a plan of 0 bytes)', () => {
    const fitted = fitImageQuota(read(), 0, 0);
    expect(fitted.fetched).toEqual([]);
    expect(fitted.parts.guild_images).toEqual({});
    expect(fitted.parts.emojis.map((emoji) => emoji.image)).toEqual([null, null, digest('d')]);
    expect(fitted.kept).toEqual([digest('d')]);
  });

  it('takes role icons after the guild’s own images and before emojis; keeps the AutoMod rules', () => {
    const withIcons = read();
    withIcons.parts.role_icons = { '7': digest('f'), '8': digest('g') };
    withIcons.parts.automod_rules = [];
    withIcons.fetched.push(image('f', 20), image('g', 20));
    // icon 10 + first role icon 20 = 30; the second (20) would pass 40, the emojis too.
    const fitted = fitImageQuota(withIcons, 0, 40);
    expect(fitted.parts.role_icons).toEqual({ '7': digest('f') });
    expect(fitted.parts.emojis.map((emoji) => emoji.image)).toEqual([null, null, digest('d')]);
    expect(fitted.parts.automod_rules).toEqual([]);
    // A plan of 0 bytes keeps no role icon.
    expect(fitImageQuota(withIcons, 0, 0).parts.role_icons).toEqual({});
  });

  it('changes nothing when everything fits', () => {
    const all = read();
    expect(fitImageQuota(all, 0, 1_000)).toBe(all);
  });

  it('keeps the parts without images as read', () => {
    const all = read();
    const onboarding = { prompts: [], default_channel_ids: [], enabled: false, mode: 0 };
    all.parts = { ...all.parts, automod_rules: [], welcome_screen: null, onboarding };
    const fitted = fitImageQuota(all, 0, 0);
    expect(fitted.parts).toMatchObject({ automod_rules: [], welcome_screen: null, onboarding });
  });
});

import { type ExpressionImage, type ImageKind, isAnimated, parseImageData } from '../expression-images';
import type { FormBody } from '../form-body';
import { type GuildImageField, imageHash } from '../guild-images';
import type { FakeGuild } from '../platform-state';

/** An uploaded guild image or role icon, as the platform keeps it: its bytes and its hash. */
export interface StoredImage {
  hash: string;
  image: ExpressionImage;
}

/** What one image field takes: its formats, the guild feature it needs, and its size limit. */
export interface ImageRule {
  /** The formats the docs name for the field ("png/jpeg/gif"). */
  formats: readonly ImageKind[];
  /** The guild feature without which the field cannot be set; none: any guild may. */
  feature?: string;
  /** A GIF is taken only with this feature. */
  gifFeature?: string;
  /** A moving GIF is taken only with this feature. */
  animatedFeature?: string;
  maxBytes: number;
  /** The limit as the error message says it. */
  maxLabel: string;
}

/**
 * The size of a guild image is undocumented (the docs give only "1024x1024" for the icon and
 * "16:9" for the others, which the platform scales to rather than refuses). The fake takes the
 * 10 MiB the docs give as the default upload limit (reference, "Uploading Files"), the only figure
 * they give for an upload; its JSON bodies stop at 1 MiB before that (413 40005), so in the fake an
 * image of about 760 KiB is the largest that arrives. The dimensions are not checked.
 */
export const MAX_GUILD_IMAGE_BYTES = 10 * 1024 * 1024;
/**
 * A role icon's size is undocumented too; the fake takes the 256 KiB the platform's own client
 * allows a role icon (and the API an emoji), the stricter reading.
 */
export const MAX_ROLE_ICON_BYTES = 256 * 1024;

const TEN_MB = '10.0 mb';

/**
 * Modify Guild (resources/guild): the icon is "png/jpeg/gif" ("can be animated gif when the server
 * has the ANIMATED_ICON feature"); the splash "png/jpeg" with INVITE_SPLASH; the discovery splash
 * "png/jpeg" with DISCOVERABLE; the banner "png/jpeg" with BANNER ("can be animated gif when the
 * server has the ANIMATED_BANNER feature", read strictly: a GIF banner at all needs it).
 *
 * The banner goes by the BANNER feature alone, not by the boost level: the docs gate it on the
 * feature, and the platform lists BANNER among the features of a guild at Boost level 2, so a test
 * of such a guild names the feature (the fake does not derive features from `premium_tier`).
 */
export const GUILD_IMAGE_RULES: Record<GuildImageField, ImageRule> = {
  icon: {
    formats: ['png', 'jpeg', 'gif'],
    animatedFeature: 'ANIMATED_ICON',
    maxBytes: MAX_GUILD_IMAGE_BYTES,
    maxLabel: TEN_MB,
  },
  banner: {
    formats: ['png', 'jpeg', 'gif'],
    feature: 'BANNER',
    gifFeature: 'ANIMATED_BANNER',
    maxBytes: MAX_GUILD_IMAGE_BYTES,
    maxLabel: TEN_MB,
  },
  splash: {
    formats: ['png', 'jpeg'],
    feature: 'INVITE_SPLASH',
    maxBytes: MAX_GUILD_IMAGE_BYTES,
    maxLabel: TEN_MB,
  },
  discovery_splash: {
    formats: ['png', 'jpeg'],
    feature: 'DISCOVERABLE',
    maxBytes: MAX_GUILD_IMAGE_BYTES,
    maxLabel: TEN_MB,
  },
};

/**
 * A role's icon (topics/permissions, Create/Modify Guild Role: "if the guild has the ROLE_ICONS
 * feature"). The CDN offers role icons as PNG, JPEG and WebP only, never GIF, so the fake takes
 * PNG and JPEG uploads (the stricter reading of image data's "JPG, GIF, and PNG").
 */
export const ROLE_ICON_RULE: ImageRule = {
  formats: ['png', 'jpeg'],
  feature: 'ROLE_ICONS',
  maxBytes: MAX_ROLE_ICON_BYTES,
  maxLabel: '256.0 kb',
};

/**
 * An image field of a body: undefined when absent, null to remove the image, else the image and
 * its hash. Image data (reference, "Image Data") is a data URI of a JPEG, GIF or PNG whose declared
 * type matches its bytes; anything else (a hash sent back, a URL) is IMAGE_INVALID.
 *
 * A field the guild lacks the feature for is refused. The docs say only that the field applies
 * "when the server has" the feature, not what the platform answers otherwise, and no JSON error
 * code names it: the fake answers 400 Invalid Form Body on the field with a code of its own,
 * GUILD_FEATURE_REQUIRED. Removing an image (null) needs no feature.
 */
export function readImage(
  form: FormBody,
  field: string,
  rule: ImageRule,
  guild: FakeGuild,
): StoredImage | null | undefined {
  const text = form.string(field);
  if (text === undefined || text === null) return text;
  const upload = parseImageData(text);
  if (!upload || !rule.formats.includes(upload.kind)) {
    const formats = rule.formats.map((kind) => kind.toUpperCase()).join(', ');
    return form.fail(field, 'IMAGE_INVALID', `Invalid image data: ${formats} only.`);
  }
  if (upload.image.bytes.length > rule.maxBytes) {
    return form.fail(field, 'BINARY_TYPE_MAX_SIZE', `File cannot be larger than ${rule.maxLabel}.`);
  }
  // Only a GIF moves on the platform's CDN (an `a_` hash is "available in an animated format");
  // an animated PNG is kept as the still image the CDN's PNG shows.
  const animated = upload.kind === 'gif' && isAnimated(upload.image.bytes, 'gif');
  const needed = [
    rule.feature,
    upload.kind === 'gif' ? rule.gifFeature : undefined,
    animated ? rule.animatedFeature : undefined,
  ];
  const missing = needed.find((feature) => feature !== undefined && !guild.features.includes(feature));
  if (missing) {
    return form.fail(field, 'GUILD_FEATURE_REQUIRED', `This guild needs the ${missing} feature for this.`);
  }
  return { hash: imageHash(upload.image.bytes, animated), image: upload.image };
}

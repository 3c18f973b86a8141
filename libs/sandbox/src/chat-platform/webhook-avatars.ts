import { createHash } from 'node:crypto';
import { type ExpressionImage, isAnimated, parseImageData } from './expression-images';
import type { FormBody } from './form-body';

/**
 * A webhook's default avatar: uploaded as image data (reference, "Image Data"), kept by the platform
 * as its bytes and named by a hash, `a_` first when it moves (reference, "Image Formatting"),
 * which the webhook object's `avatar` holds and the CDN serves at `avatars/{webhook_id}/{hash}.png`.
 * The docs give no size limit for it; the fake's 1 MiB request body bounds it.
 */
export interface WebhookAvatar {
  hash: string;
  image: ExpressionImage;
}

/**
 * The `avatar` of a webhook body: undefined when absent, null to remove it, else the upload. Not
 * image data (or bytes that are not the type it names) is an Invalid Form Body.
 */
export function readWebhookAvatar(form: FormBody): WebhookAvatar | null | undefined {
  const text = form.string('avatar');
  if (text === undefined || text === null) return text;
  const upload = parseImageData(text);
  if (!upload) return form.fail('avatar', 'IMAGE_INVALID', 'Invalid image data');
  const digest = createHash('md5').update(upload.image.bytes).digest('hex');
  const hash = isAnimated(upload.image.bytes, upload.kind) ? `a_${digest}` : digest;
  return { hash, image: upload.image };
}

/** Each webhook's avatar, by webhook id, while the webhook has it. */
export class WebhookAvatars {
  private readonly byWebhook = new Map<string, WebhookAvatar>();

  /** The image of the webhook's avatar with this hash; undefined for an older or unknown one. */
  image(webhookId: string, hash: string): ExpressionImage | undefined {
    const avatar = this.byWebhook.get(webhookId);
    return avatar?.hash === hash ? avatar.image : undefined;
  }

  set(webhookId: string, avatar: WebhookAvatar | null): void {
    if (avatar) this.byWebhook.set(webhookId, avatar);
    else this.byWebhook.delete(webhookId);
  }

  clear(): void {
    this.byWebhook.clear();
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { ChatPlatformClient, isChatPlatformError } from '@lib/chat-platform';
import type { Response } from 'express';
import { testDmContent } from '../notifications/templates';
import type { TestDmView } from './preferences.dto';
import { TestDmErrors } from './preferences.errors';
import { PreferencesRepository } from './preferences.repository';

export const TEST_DM_INTERVAL_SECONDS = Symbol('TEST_DM_INTERVAL_SECONDS');

/**
 * "Send me a test DM": the user sees at once whether the bot's DMs reach them. Sent now, not
 * through the queue, so the answer says what the platform did; at most one per interval per user
 * (counted in Postgres, so every replica shares it).
 */
@Injectable()
export class TestDmService {
  constructor(
    private readonly preferences: PreferencesRepository,
    private readonly platform: ChatPlatformClient,
    @Inject(TEST_DM_INTERVAL_SECONDS) private readonly intervalSeconds: number,
  ) {}

  async send(user: { user_id: string; platform_user_id: string }, res: Response): Promise<TestDmView> {
    await this.claimSlot(user.user_id, res);
    const content = testDmContent(await this.preferences.get(user.user_id));
    try {
      const message = await this.platform.sendDirectMessage(user.platform_user_id, { content });
      return { sent_at: new Date().toISOString(), content, platform_message_id: message.id };
    } catch (error) {
      if (!isChatPlatformError(error)) throw error;
      if (error.retryable) {
        throw TestDmErrors.platformUnavailable();
      }
      throw TestDmErrors.dmRefused(
        error.code === 'DmBlocked'
          ? 'The platform does not let the bot send you DMs. Allow direct messages from server members in your privacy settings, then try again.'
          : `The platform refused the test DM (${error.message}).`,
      );
    }
  }

  /** Takes this user's test-DM slot, or answers 429 with when the next one is allowed. */
  private async claimSlot(userId: string, res: Response): Promise<void> {
    const wait = await this.preferences.claimTestDm(userId, this.intervalSeconds);
    if (wait === null) return;
    res.setHeader('Retry-After', String(wait));
    throw TestDmErrors.tooOften(`One test DM every ${this.intervalSeconds} s. Try again in ${wait} s.`, {
      retry_after: wait,
    });
  }
}

import { Body, Controller, Get, HttpCode, Post, Put, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { InternalIdentity } from '@lib/contracts';
import { requireUser } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { ProblemAnswers } from '@lib/problem-details';
import type { Response } from 'express';
import { TestDmErrors } from './preferences.errors';
import { PutNotificationPreferencesDto, type TestDmView } from './preferences.dto';
import { type NotificationPreferences, PreferencesRepository } from './preferences.repository';
import { TestDmService } from './test-dm.service';

/** docs/decisions/notification-preferences.md: per user, `GET/PUT /api/v1/me/notification-preferences`. */
@Controller('api/v1/me/notification-preferences')
export class PreferencesController {
  constructor(
    private readonly preferences: PreferencesRepository,
    private readonly testDms: TestDmService,
  ) {}

  @ApiOperation({ summary: 'Get notification preferences' })
  @Get()
  get(@CurrentIdentity() identity: InternalIdentity): Promise<NotificationPreferences> {
    return this.preferences.get(requireUser(identity).user_id);
  }

  @ApiOperation({ summary: 'Set notification preferences' })
  @Put()
  put(
    @CurrentIdentity() identity: InternalIdentity,
    @Body() body: PutNotificationPreferencesDto,
  ): Promise<NotificationPreferences> {
    const user = requireUser(identity);
    return this.preferences.put({ userId: user.user_id, platformUserId: user.platform_user_id }, body);
  }

  /** Sends the caller a DM now; 422 when the platform refuses it, 429 more often than the interval. */
  @ApiOperation({ summary: 'Send me a test DM' })
  @ProblemAnswers(TestDmErrors.dmRefused, TestDmErrors.tooOften)
  @Post('test-dm')
  @HttpCode(200)
  sendTestDm(
    @CurrentIdentity() identity: InternalIdentity,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TestDmView> {
    return this.testDms.send(requireUser(identity), res);
  }
}

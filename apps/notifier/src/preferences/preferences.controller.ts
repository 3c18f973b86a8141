import { ApiOperation } from '@nestjs/swagger';
import { Body, Controller, Get, Put } from '@nestjs/common';
import type { InternalIdentity } from '@lib/contracts';
import { requireUser } from '@lib/guild-access';
import { CurrentIdentity } from '@lib/identity';
import { PutNotificationPreferencesDto } from './preferences.dto';
import { type NotificationPreferences, PreferencesRepository } from './preferences.repository';

/** ARCHITECTURE.md: per user, `GET/PUT /api/v1/me/notification-preferences`. */
@Controller('api/v1/me/notification-preferences')
export class PreferencesController {
  constructor(private readonly preferences: PreferencesRepository) {}

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
    return this.preferences.put(requireUser(identity).user_id, body);
  }
}

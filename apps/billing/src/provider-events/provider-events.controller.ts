import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import type { ProviderEventOutcome } from '@lib/contracts';
import { ServiceRoute } from '@lib/identity';
import { RoutedProviderEventDto } from './provider-events.dto';
import { ProviderEventsService } from './provider-events.service';

/**
 * Webhook intake routes provider events here; a non-2xx answer makes it ask for a resend. Only the
 * intake's own identity is believed: another service's token is refused (403).
 */
@Controller('internal/v1/provider-events')
export class ProviderEventsController {
  constructor(private readonly events: ProviderEventsService) {}

  @Post()
  @HttpCode(200)
  @ServiceRoute('webhook-intake')
  apply(@Body() body: RoutedProviderEventDto): Promise<ProviderEventOutcome> {
    return this.events.apply(body);
  }
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import type { ProviderEventOutcome } from '@lib/contracts';
import { ServiceRoute } from '@lib/identity';
import { RoutedProviderEventDto } from './provider-events.dto';
import { ProviderEventsService } from './provider-events.service';

/** Webhook intake routes verified provider events here; a non-2xx answer makes it ask for a resend. */
@Controller('internal/v1/provider-events')
export class ProviderEventsController {
  constructor(private readonly events: ProviderEventsService) {}

  @Post()
  @HttpCode(200)
  @ServiceRoute()
  apply(@Body() body: RoutedProviderEventDto): Promise<ProviderEventOutcome> {
    return this.events.apply(body);
  }
}

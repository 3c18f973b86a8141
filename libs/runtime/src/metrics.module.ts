import { Controller, Get, Header, Module } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { collectDefaultMetrics, register } from 'prom-client';

let defaultsCollected = false;

/** Prometheus text exposition of the process's registry (`GET /metrics`). */
@PublicRoute()
@Controller('metrics')
class MetricsController {
  @Get()
  @Header('Content-Type', register.contentType)
  metrics(): Promise<string> {
    return register.metrics();
  }
}

@Module({ controllers: [MetricsController] })
export class MetricsModule {
  constructor() {
    if (!defaultsCollected) {
      collectDefaultMetrics();
      defaultsCollected = true;
    }
  }
}

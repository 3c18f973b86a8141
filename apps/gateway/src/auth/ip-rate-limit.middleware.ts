import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RateLimiter } from './rate-limiter';
import { RATE_LIMITS, type RateLimits } from './session.guard';

/** Per client address, before anything else: also covers login attempts and anonymous calls. */
@Injectable()
export class IpRateLimitMiddleware implements NestMiddleware {
  constructor(
    private readonly limiter: RateLimiter,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    this.limiter.consume(`ip:${req.ip ?? 'unknown'}`, this.limits.perIp, res).then(() => next(), next);
  }
}

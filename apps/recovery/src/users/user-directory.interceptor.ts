import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import type { IdentifiedRequest } from '@lib/identity';
import { from, type Observable, switchMap } from 'rxjs';
import { UserDirectory } from './user-directory.repository';

/**
 * Records the caller of every user request in the UserDirectory before the handler runs. The
 * directory serves attribution only: a failure to record is logged, and the request goes on.
 */
@Injectable()
export class UserDirectoryInterceptor implements NestInterceptor {
  private readonly logger = new Logger(UserDirectoryInterceptor.name);

  constructor(private readonly directory: UserDirectory) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const identity =
      context.getType() === 'http'
        ? context.switchToHttp().getRequest<IdentifiedRequest>().identity
        : undefined;
    if (identity?.kind !== 'user') return next.handle();
    const recorded = this.directory.remember(identity).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'the caller could not be recorded in the user directory');
    });
    return from(recorded).pipe(switchMap(() => next.handle()));
  }
}

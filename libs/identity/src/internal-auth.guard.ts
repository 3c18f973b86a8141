import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { INTERNAL_TOKEN_HEADER, type InternalIdentity, type ServiceName } from '@lib/contracts';
import { CommonErrors } from '@lib/problem-details';
import type { Request } from 'express';
import { InternalTokenCodec } from './internal-token';

const PUBLIC_ROUTE = 'identity:public';
const SERVICE_ROUTE = 'identity:service-only';

/** Marks a route that needs no internal token (health probes, the provider's webhook). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);

/**
 * Marks a route only sibling services may call (`/internal/...`), never a user through the gateway.
 * Naming services narrows it to them: any other service's token is refused (403), as a user's is.
 */
export const ServiceRoute = (...services: ServiceName[]) =>
  SetMetadata(SERVICE_ROUTE, services.length > 0 ? services : true);

export type IdentifiedRequest = Request & { identity?: InternalIdentity };

/**
 * Global guard of every service: a request must carry a valid internal token, which only the
 * gateway and sibling services can mint. The identity it carries is put on the request.
 */
@Injectable()
export class InternalAuthGuard implements CanActivate {
  constructor(
    private readonly codec: InternalTokenCodec,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<IdentifiedRequest>();
    const header = request.headers[INTERNAL_TOKEN_HEADER];
    const identity = await this.codec.verify(Array.isArray(header) ? header[0] : header);
    if (!identity) throw CommonErrors.unauthenticated('A valid internal identity token is required.');
    const serviceOnly = this.reflector.getAllAndOverride<boolean | ServiceName[] | undefined>(SERVICE_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (serviceOnly && identity.kind !== 'service') {
      throw CommonErrors.forbidden('This route is for internal service calls only.');
    }
    if (
      Array.isArray(serviceOnly) &&
      identity.kind === 'service' &&
      !serviceOnly.includes(identity.service)
    ) {
      throw CommonErrors.forbidden(`This route is for ${serviceOnly.join(', ')} only.`);
    }
    request.identity = identity;
    return true;
  }
}

/** The verified caller of the current request. */
export const CurrentIdentity = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const request = context.switchToHttp().getRequest<IdentifiedRequest>();
  if (!request.identity) throw CommonErrors.unauthenticated();
  return request.identity;
});

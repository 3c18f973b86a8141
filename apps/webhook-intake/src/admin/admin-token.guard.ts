import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { CommonErrors } from '@lib/problem-details';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/** The SHA-256 digests of the operator tokens (ADMIN_TOKEN_SHA256). */
export class AdminTokenDigests {
  readonly digests: Buffer[];

  constructor(commaSeparatedHex: string) {
    this.digests = commaSeparatedHex.split(',').map((hex) => Buffer.from(hex.trim().toLowerCase(), 'hex'));
  }
}

/**
 * Operator tools authenticate with `Authorization: Bearer <token>` (docs/decisions/operator-tools.md): the token's
 * SHA-256 is compared in constant time with every configured digest.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly tokens: AdminTokenDigests) {}

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const match = /^Bearer ([\x21-\x7e]{16,512})$/.exec(header);
    if (!match)
      throw CommonErrors.unauthenticated('Operator tools need Authorization: Bearer <admin token>.');
    const digest = createHash('sha256').update(match[1]).digest();
    let valid = false;
    for (const known of this.tokens.digests) valid = timingSafeEqual(digest, known) || valid;
    if (!valid) throw CommonErrors.unauthenticated('The admin token is not valid.');
    return true;
  }
}

import {
  applyDecorators,
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  type Type,
  UseGuards,
} from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { CommonErrors, DomainError, ProblemAnswers } from '@lib/problem-details';
import { GuildAccessErrors } from './guild-access.errors';
import type { Request } from 'express';
import { assertManageGuild, requireUser, type UserIdentity } from './manage-guild';

/**
 * Who answers "does this user manage this guild": recovery's registry inside recovery,
 * GuildAccessClient (which asks recovery) everywhere else. A guild it does not know is a 404
 * DomainError.
 */
export abstract class GuildAccessSource {
  /**
   * `userId`: our id of the same user, when the check is for a user request; recovery records the
   * pair so that it can name the user later (docs/security.md, "member names").
   */
  abstract access(guildId: string, platformUserId: string, userId?: string): Promise<GuildAccess>;
}

/** Where the raw request names the guild or the resource: a path parameter, a query or a body field. */
export type RequestField = { params: string } | { query: string } | { body: string };

/** A kind of resource that belongs to a guild (snapshot, restore job, subscription...). */
export interface GuildResourceLookup {
  /**
   * The guild of the resource `id` names, or null when there is none. `ownedByCaller`: the caller
   * may see it without managing the guild (the payer sees their own subscription).
   */
  find(id: string, user: UserIdentity): Promise<{ guildId: string; ownedByCaller?: boolean } | null>;
  /** The answer for a missing resource, which is also the answer for one the caller may not see. */
  notFound(): DomainError;
}

/** What the guard established: the guild the request acts in, and the caller's standing there. */
export interface GuildScope {
  guildId: string;
  /** null only when the caller sees the resource as its owner, not as a manager of the guild. */
  access: GuildAccess | null;
}

interface ScopeRule {
  field: RequestField;
  lookup?: Type<GuildResourceLookup>;
}

type ScopedRequest = Request & { identity?: InternalIdentity; guildScope?: GuildScope };

const SCOPE_RULE = 'guild-access:scope-rule';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Access before anything else: Nest runs guards before pipes, so this check comes before the
 * body, query and path are validated, and a caller who may not act in a guild gets the same
 * answer whatever they sent. The guild or resource id is read from the raw request; one that is
 * missing or malformed names nothing, and is answered like an unknown one.
 */
@Injectable()
export class GuildScopeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly source: GuildAccessSource,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.get<ScopeRule | undefined>(SCOPE_RULE, context.getHandler());
    if (!rule) throw new Error(`${context.getHandler().name} uses GuildScopeGuard without a scope rule`);
    const request = context.switchToHttp().getRequest<ScopedRequest>();
    if (!request.identity) throw CommonErrors.unauthenticated();
    const user = requireUser(request.identity);
    const id = uuidIn(request, rule.field);
    request.guildScope = rule.lookup
      ? await this.resourceScope(rule.lookup, id, user)
      : await this.guildScope(id, user);
    return true;
  }

  /** A guild route: 403 ErrForbidden to anyone who does not manage the guild, known or not. */
  private async guildScope(guildId: string | null, user: UserIdentity): Promise<GuildScope> {
    const access = guildId ? await this.accessOf(guildId, user) : null;
    return { guildId: assertManageGuild(access).guild_id, access };
  }

  /** A resource route: the resource's own not-found answer to anyone who may not see it. */
  private async resourceScope(
    lookupType: Type<GuildResourceLookup>,
    id: string | null,
    user: UserIdentity,
  ): Promise<GuildScope> {
    const lookup = this.moduleRef.get(lookupType, { strict: false });
    const found = id ? await lookup.find(id, user) : null;
    if (!found) throw lookup.notFound();
    if (found.ownedByCaller) return { guildId: found.guildId, access: null };
    const access = await this.accessOf(found.guildId, user);
    if (!access?.manage_guild) throw lookup.notFound();
    return { guildId: found.guildId, access: assertManageGuild(access) };
  }

  private async accessOf(guildId: string, user: UserIdentity): Promise<GuildAccess | null> {
    try {
      return await this.source.access(guildId, user.platform_user_id, user.user_id);
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) return null;
      throw error;
    }
  }
}

function uuidIn(request: ScopedRequest, field: RequestField): string | null {
  let value: unknown;
  if ('params' in field) value = request.params?.[field.params];
  else if ('query' in field) value = (request.query as Record<string, unknown> | undefined)?.[field.query];
  else if (typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body)) {
    value = (request.body as Record<string, unknown>)[field.body];
  }
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : null;
}

/**
 * The route acts in the guild `field` names, and needs MANAGE_GUILD there: 403 ErrForbidden
 * otherwise, before validation. The handler reads the guild with `@ManagedGuild()`.
 */
export function RequireManageGuild(field: RequestField): MethodDecorator {
  return applyDecorators(
    SetMetadata(SCOPE_RULE, { field } satisfies ScopeRule),
    UseGuards(GuildScopeGuard),
    ProblemAnswers(CommonErrors.forbidden, GuildAccessErrors.guildInactive),
  );
}

/**
 * The route acts on a resource of a guild, which `field` names and `lookup` (a provider) finds:
 * the caller must manage its guild (or own it), else it does not exist for them. The handler
 * reads the resource's guild with `@ScopeGuildId()`.
 */
export function RequireManageGuildOf(
  lookup: Type<GuildResourceLookup>,
  field: RequestField,
): MethodDecorator {
  return applyDecorators(
    SetMetadata(SCOPE_RULE, { field, lookup } satisfies ScopeRule),
    UseGuards(GuildScopeGuard),
    // The resource's own 404 is the route's to declare (its code is the lookup's).
    ProblemAnswers(GuildAccessErrors.guildInactive),
  );
}

function scopeOf(context: ExecutionContext): GuildScope {
  const scope = context.switchToHttp().getRequest<ScopedRequest>().guildScope;
  if (!scope) throw new Error('no guild scope: the route lacks @RequireManageGuild or @RequireManageGuildOf');
  return scope;
}

/** The guild a `@RequireManageGuild` route acts in, as the access check found it. */
export const ManagedGuild = createParamDecorator((_: unknown, context: ExecutionContext): GuildAccess => {
  const { access } = scopeOf(context);
  if (!access) throw new Error('@ManagedGuild needs a route guarded by @RequireManageGuild');
  return access;
});

/** The guild of the resource a `@RequireManageGuildOf` route acts on. */
export const ScopeGuildId = createParamDecorator(
  (_: unknown, context: ExecutionContext): string => scopeOf(context).guildId,
);

import { Injectable } from '@nestjs/common';
import { CommonErrors } from '@lib/problem-details';
import type { Session } from '../auth/sessions';
import { MyGuilds } from './my-guilds.service';

/** The registration route, which recovery answers by reading the guild and the member with the bot's token. */
export function isRegistration(method: string, path: string): boolean {
  return method === 'POST' && path === '/api/v1/guilds';
}

/**
 * Registering a guild costs the bot several platform calls, from a budget every guild shares. The
 * user's own guild list (their token, their budget, reused for a while) is asked first: who cannot
 * manage the guild by their own list is refused here, before recovery spends a bot call. A body
 * that names no guild is recovery's to refuse (400), which it does before any platform call.
 */
@Injectable()
export class RegistrationCheck {
  constructor(private readonly myGuilds: MyGuilds) {}

  async check(
    session: Session,
    sessionToken: string | undefined,
    rawBody: Buffer | undefined,
  ): Promise<void> {
    const platformGuildId = guildNamed(rawBody);
    if (platformGuildId === null) return;
    if (!sessionToken) throw CommonErrors.unauthenticated();
    if (!(await this.myGuilds.manages(session, sessionToken, platformGuildId))) {
      throw CommonErrors.forbidden('You need the Manage Server permission on this guild.');
    }
  }
}

/** `platform_guild_id` of a JSON body, or null when the body names none as a string. */
function guildNamed(rawBody: Buffer | undefined): string | null {
  if (!rawBody?.length) return null;
  try {
    const body = JSON.parse(rawBody.toString('utf8')) as unknown;
    const id =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>).platform_guild_id : null;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

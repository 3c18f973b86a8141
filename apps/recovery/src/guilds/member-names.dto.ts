import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsUUID, Matches } from 'class-validator';
import { SNOWFLAKE } from './guilds.dto';

/** How many ids of each kind one request may name: a page of the audit log names fewer. */
export const MAX_NAMED_USERS = 50;

/** A repeated query parameter arrives as an array, a single one as a string: always a list. */
const AsList = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value));

export class MemberNamesQuery {
  /** Our user ids (repeat the parameter for more, at most 50), as the audit log names them. */
  @IsOptional()
  @AsList()
  @IsArray()
  @ArrayMaxSize(MAX_NAMED_USERS)
  @IsUUID('all', { each: true, message: 'each user_id must be a user id (a UUID)' })
  user_id?: string[];

  /** Platform user ids (repeat the parameter for more, at most 50), as AntiNuke and payments name them. */
  @IsOptional()
  @AsList()
  @IsArray()
  @ArrayMaxSize(MAX_NAMED_USERS)
  @Matches(SNOWFLAKE, { each: true, message: 'each platform_user_id must be a platform user id (digits)' })
  platform_user_id?: string[];
}

/** One user asked about, and the name the guild knows them by. */
export interface MemberNameView {
  /** The user id asked about; null for an item asked by its platform user id. */
  user_id: string | null;
  platform_user_id: string;
  /** Nickname, display name or user name in this guild; null when they are not a member (or the platform did not say). */
  name: string | null;
}

/**
 * Who is calling, as the gateway (or a calling service) vouches for it in the internal token.
 * Services trust only this, never a client-sent header.
 */
export type InternalIdentity =
  | {
      kind: 'user';
      /** identity.users id (UUID v7). */
      user_id: string;
      /** The chat platform's user id (snowflake). */
      platform_user_id: string;
      session_id: string;
    }
  | {
      kind: 'service';
      service: 'gateway' | 'recovery' | 'billing' | 'licensing' | 'notifier' | 'webhook-intake';
    };

export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
export const INTERNAL_TOKEN_AUDIENCE = 'guildkeeper-internal';
export const REQUEST_ID_HEADER = 'x-request-id';

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
      service: ServiceName;
    };

/** The services, each of which signs its internal calls with a key of its own (its issuer name). */
export const SERVICE_NAMES = [
  'gateway',
  'recovery',
  'billing',
  'licensing',
  'notifier',
  'webhook-intake',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The one issuer whose user identities services believe: the gateway, which holds the sessions. */
export const USER_IDENTITY_ISSUER: ServiceName = 'gateway';

export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
export const REQUEST_ID_HEADER = 'x-request-id';

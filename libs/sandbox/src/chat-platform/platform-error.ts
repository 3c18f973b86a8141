/** The platform's nested field errors: `{ name: { _errors: [{ code, message }] }, roles: { 0: ... } }`. */
export interface FieldErrors {
  [field: string]: FieldErrors | { code: string; message: string }[];
}

export interface PlatformErrorBody {
  message: string;
  code: number;
  errors?: FieldErrors;
}

/** An answer in the platform's error format; thrown by route handlers, rendered by the server. */
export class PlatformHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: FieldErrors,
  ) {
    super(message);
  }

  body(): PlatformErrorBody {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) };
  }
}

const error = (status: number, code: number, message: string) => () =>
  new PlatformHttpError(status, code, message);

/** The platform's JSON error codes this fake answers with. */
export const platformError = {
  unauthorized: error(401, 0, '401: Unauthorized'),
  notFound: error(404, 0, '404: Not Found'),
  methodNotAllowed: error(405, 0, '405: Method Not Allowed'),
  unknownChannel: error(404, 10003, 'Unknown Channel'),
  unknownGuild: error(404, 10004, 'Unknown Guild'),
  unknownMember: error(404, 10007, 'Unknown Member'),
  unknownOverwrite: error(404, 10009, 'Unknown Overwrite'),
  unknownRole: error(404, 10011, 'Unknown Role'),
  unknownUser: error(404, 10013, 'Unknown User'),
  unknownWebhook: error(404, 10015, 'Unknown Webhook'),
  unknownEmoji: error(404, 10014, 'Unknown Emoji'),
  unknownBan: error(404, 10026, 'Unknown Ban'),
  unknownSticker: error(404, 10060, 'Unknown Sticker'),
  unknownTag: error(404, 10087, 'Unknown Tag'),
  maxRoles: error(400, 30005, 'Maximum number of guild roles reached (250)'),
  maxEmojis: error(400, 30008, 'Maximum number of emojis reached'),
  maxChannels: error(400, 30013, 'Maximum number of guild channels reached (500)'),
  maxStickers: error(400, 30039, 'Maximum number of stickers reached'),
  requestTooLarge: error(413, 40005, 'Request entity too large'),
  tagNamesNotUnique: error(400, 40061, 'Tag names must be unique'),
  missingAccess: error(403, 50001, 'Missing Access'),
  emptyMessage: error(400, 50006, 'Cannot send an empty message'),
  cannotMessageUser: error(403, 50007, 'Cannot send messages to this user'),
  missingPermissions: error(403, 50013, 'Missing Permissions'),
  invalidJson: error(400, 50109, 'The request body contains invalid JSON.'),
  invalidLottie: error(400, 170001, 'Invalid Lottie JSON'),
  /**
   * A tertiary role colour other than the holographic preset. Discord documents the preset
   * (topics/permissions, Role Colors Object) but not this answer; 670008 is what it is seen to send.
   */
  invalidRoleColor: error(400, 670008, 'Invalid role color'),
  /** A bulk ban that banned nobody. */
  failedToBanUsers: error(500, 500000, 'Failed to ban users'),
  invalidFormBody: (errors: FieldErrors) => new PlatformHttpError(400, 50035, 'Invalid Form Body', errors),
  unknownWelcomeScreen: error(404, 10069, 'Unknown Guild Welcome Screen'),
  /**
   * Discord documents no JSON code for a rule id it does not know (topics/opcodes-and-status-codes
   * lists none); the fake answers 404 with code 0, so a client can go by the status alone.
   */
  unknownAutoModRule: error(404, 0, 'Unknown Auto Moderation Rule'),
  maxWebhooks: error(400, 30007, 'Maximum number of webhooks reached (15)'),
  maxGuildWebhooks: error(400, 30058, 'Maximum number of webhooks per guild reached (1000)'),
  cannotActOnChannelType: error(400, 50024, 'Cannot execute action on this channel type'),
  onboardingRequirementsNotMet: error(400, 350000, 'Cannot enable onboarding, requirements are not met'),
  onboardingBelowRequirements: error(400, 350001, 'Cannot update onboarding while below requirements'),
};

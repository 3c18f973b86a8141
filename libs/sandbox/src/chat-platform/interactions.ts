import { randomBytes } from 'node:crypto';
import { platformError } from './platform-error';
import { SnowflakeGenerator } from './snowflake';

/**
 * The interactions the fake delivered and what became of them, after the platform's rules
 * (interactions/receiving-and-responding, "Interaction Callback" and "Followup Messages"):
 * the initial response must arrive within 3 seconds of the delivery or the token is invalidated;
 * an acknowledged interaction's token is valid for 15 minutes, to edit the original response.
 */

/** The platform's deadline for the initial response. */
export const INTERACTION_RESPONSE_DEADLINE_MS = 3_000;
/** How long an acknowledged interaction's token works on the webhook endpoints. */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60_000;

/** Message flags the original response may carry (resources/message, "Message Flags"). */
export const MESSAGE_FLAGS = {
  SUPPRESS_EMBEDS: 1 << 2,
  EPHEMERAL: 1 << 6,
  LOADING: 1 << 7,
  SUPPRESS_NOTIFICATIONS: 1 << 12,
  IS_COMPONENTS_V2: 1 << 15,
} as const;

/** Callback types an APPLICATION_COMMAND may be answered with (6 and 7 are for components only). */
const COMMAND_CALLBACK_TYPES = new Set([4, 5, 9, 10, 12]);
/** Flags an initial message response may set. */
const RESPONSE_FLAGS =
  MESSAGE_FLAGS.SUPPRESS_EMBEDS |
  MESSAGE_FLAGS.EPHEMERAL |
  MESSAGE_FLAGS.SUPPRESS_NOTIFICATIONS |
  MESSAGE_FLAGS.IS_COMPONENTS_V2 |
  (1 << 13); // IS_VOICE_MESSAGE
const MAX_CONTENT_LENGTH = 2000;
const MAX_EMBEDS = 10;

/** The endpoint's answer to the delivery, as the platform read it. */
export interface InitialResponse {
  /** The HTTP status of the endpoint's answer; 0 when none came (connection refused, reset). */
  status: number;
  /** The interaction callback type, when the answer was an interaction response. */
  type?: number;
  flags?: number;
  content?: string;
  /** Epoch ms the answer arrived, and how long after the delivery. */
  at: number;
  afterMs: number;
}

/** The message the initial response created (type 4 or 5), as it stands after the edits. */
export interface OriginalMessage {
  id: string;
  content: string;
  embeds: unknown[];
  flags: number;
  createdAt: number;
  editedAt: number | null;
}

export interface InteractionEdit {
  /** The content after the edit. */
  content: string;
  at: number;
  afterMs: number;
}

export interface InteractionRecord {
  id: string;
  applicationId: string;
  token: string;
  guildId: string;
  channelId: string;
  userId: string;
  /** The command's name with its subcommand, e.g. `snapshot create`. */
  commandName: string;
  /** Epoch ms of the delivery. */
  sentAt: number;
  /** The deadline the initial response was held to. */
  deadlineMs: number;
  initialResponse?: InitialResponse;
  /** True when a valid initial response arrived within the deadline. */
  withinDeadline: boolean;
  /**
   * `pending` while the delivery is out; `acknowledged` when a valid initial response arrived in
   * time; `failed` otherwise (the member sees "The application did not respond" or "This
   * interaction failed"), with the reason in `failure`.
   */
  outcome: 'pending' | 'acknowledged' | 'failed';
  failure?: string;
  originalMessage?: OriginalMessage;
  /** Edits of the original response the platform took, oldest first. */
  edits: InteractionEdit[];
}

export interface OpenInteraction {
  id: string;
  applicationId: string;
  guildId: string;
  channelId: string;
  userId: string;
  commandName: string;
}

/** What the edit endpoint changes on the original message. */
export interface MessageEdit {
  content?: string | null;
  embeds?: unknown[] | null;
  /** Only SUPPRESS_EMBEDS and IS_COMPONENTS_V2 can be changed on an existing message. */
  flags?: number | null;
}

export class InteractionStore {
  private readonly byId = new Map<string, InteractionRecord>();
  private readonly idByToken = new Map<string, string>();
  private readonly waiters = new Map<string, (() => void)[]>();
  private deadline = INTERACTION_RESPONSE_DEADLINE_MS;

  /**
   * `nextId` gives the original response's message id: on the platform the response is a message
   * with a snowflake of its own, not the interaction's (the callback's answer names the two apart,
   * `interaction.id` and `response_message_id`).
   */
  constructor(private readonly nextId: () => string = () => defaultIds.next()) {}

  get deadlineMs(): number {
    return this.deadline;
  }

  /**
   * Tests may hold the product to a shorter deadline than the platform's, never a longer one: a
   * product that passes only with more time would fail on the platform.
   */
  setDeadline(ms: number): void {
    if (!(ms > 0 && ms <= INTERACTION_RESPONSE_DEADLINE_MS)) {
      throw new Error(
        `the interaction deadline must be between 1 and ${INTERACTION_RESPONSE_DEADLINE_MS} ms`,
      );
    }
    this.deadline = ms;
  }

  /** A delivered interaction, with a fresh token unique to it. */
  open(interaction: OpenInteraction, now: number): InteractionRecord {
    // The platform's tokens are long opaque strings; the prefix is base64 of "interaction:".
    const token = `aW50ZXJhY3Rpb246${interaction.id}:${randomBytes(48).toString('base64url')}`;
    const record: InteractionRecord = {
      ...interaction,
      token,
      sentAt: now,
      deadlineMs: this.deadline,
      withinDeadline: false,
      outcome: 'pending',
      edits: [],
    };
    this.byId.set(record.id, record);
    this.idByToken.set(token, record.id);
    return record;
  }

  /**
   * The endpoint's answer to the delivery: `body` is its parsed JSON (undefined when it was not
   * JSON). A late answer, a non-200 answer or one that is not a valid response to a command
   * fails the interaction, and its token is invalidated.
   */
  respond(id: string, answer: { status: number; body: unknown }, now: number): InteractionRecord {
    const record = this.live(id);
    const body = isRecord(answer.body) ? answer.body : {};
    const data = isRecord(body.data) ? body.data : {};
    record.initialResponse = {
      status: answer.status,
      ...(typeof body.type === 'number' ? { type: body.type } : {}),
      ...(typeof data.flags === 'number' ? { flags: data.flags } : {}),
      ...(typeof data.content === 'string' ? { content: data.content } : {}),
      at: now,
      afterMs: now - record.sentAt,
    };
    const failure = this.failureOf(record, answer.status, body, data);
    if (failure) {
      record.outcome = 'failed';
      record.failure = failure;
      return record;
    }
    record.withinDeadline = true;
    record.outcome = 'acknowledged';
    const flags = typeof data.flags === 'number' ? data.flags : 0;
    record.originalMessage = {
      id: this.nextId(),
      // A deferred response is a loading message with no content until it is edited.
      content: body.type === 4 && typeof data.content === 'string' ? data.content : '',
      embeds: body.type === 4 && Array.isArray(data.embeds) ? structuredClone(data.embeds) : [],
      flags: body.type === 5 ? flags | MESSAGE_FLAGS.LOADING : flags,
      createdAt: now,
      editedAt: null,
    };
    return record;
  }

  /** The delivery got no answer at all: the interaction failed. */
  unanswered(id: string, reason: string, now: number): InteractionRecord {
    const record = this.live(id);
    record.initialResponse = { status: 0, at: now, afterMs: now - record.sentAt };
    record.outcome = 'failed';
    record.failure = reason;
    return record;
  }

  /**
   * `PATCH /webhooks/{application_id}/{token}/messages/@original`. The token is the only
   * authentication: an unknown token, another application's, one invalidated by a missed deadline
   * or one past its 15 minutes is refused as an unknown webhook.
   */
  editOriginal(
    applicationId: string,
    token: string,
    edit: MessageEdit,
    now: number,
  ): { record: InteractionRecord; message: OriginalMessage } {
    const record = this.usable(applicationId, token, now);
    const message = record.originalMessage!;
    const content = edit.content === undefined ? message.content : (edit.content ?? '');
    const embeds = edit.embeds === undefined ? message.embeds : (edit.embeds ?? []);
    if (content === '' && embeds.length === 0) throw platformError.emptyMessage();
    const editable = MESSAGE_FLAGS.SUPPRESS_EMBEDS | MESSAGE_FLAGS.IS_COMPONENTS_V2;
    const kept = message.flags & ~editable & ~MESSAGE_FLAGS.LOADING;
    const flags =
      edit.flags === undefined || edit.flags === null
        ? message.flags & ~MESSAGE_FLAGS.LOADING
        : kept | (edit.flags & editable);
    Object.assign(message, { content, embeds: structuredClone(embeds), flags, editedAt: now });
    record.edits.push({ content, at: now, afterMs: now - record.sentAt });
    this.notify(record.id);
    return { record, message };
  }

  /** `GET /webhooks/{application_id}/{token}/messages/@original`, with the same token rules. */
  original(
    applicationId: string,
    token: string,
    now: number,
  ): { record: InteractionRecord; message: OriginalMessage } {
    const record = this.usable(applicationId, token, now);
    return { record, message: record.originalMessage! };
  }

  get(id: string): InteractionRecord | undefined {
    const record = this.byId.get(id);
    return record && structuredClone(record);
  }

  /** Resolves once the interaction has at least `count` edits, or rejects after `timeoutMs`. */
  async edited(id: string, count: number, timeoutMs: number): Promise<InteractionRecord> {
    const reached = () => (this.byId.get(id)?.edits.length ?? 0) >= count;
    if (!reached()) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          remove();
          reject(new Error(`interaction ${id} got no edit #${count} within ${timeoutMs} ms`));
        }, timeoutMs);
        const listener = () => {
          if (!reached()) return;
          clearTimeout(timer);
          remove();
          resolve();
        };
        const remove = () => {
          const left = (this.waiters.get(id) ?? []).filter((candidate) => candidate !== listener);
          if (left.length > 0) this.waiters.set(id, left);
          else this.waiters.delete(id);
        };
        this.waiters.set(id, [...(this.waiters.get(id) ?? []), listener]);
      });
    }
    return this.get(id)!;
  }

  /** Forgets every interaction (the deadline stays); waiters time out on their own. */
  clear(): void {
    this.byId.clear();
    this.idByToken.clear();
  }

  private failureOf(
    record: InteractionRecord,
    status: number,
    body: Record<string, unknown>,
    data: Record<string, unknown>,
  ): string | undefined {
    const afterMs = record.initialResponse!.afterMs;
    if (afterMs > record.deadlineMs) {
      return `no initial response within ${record.deadlineMs} ms (it came after ${afterMs} ms)`;
    }
    if (status !== 200) return `the endpoint answered ${status}`;
    if (typeof body.type !== 'number' || !COMMAND_CALLBACK_TYPES.has(body.type)) {
      return `callback type ${String(body.type)} does not answer an application command`;
    }
    const flags = data.flags;
    if (flags !== undefined && flags !== null && typeof flags !== 'number')
      return 'data.flags is not an integer';
    if (body.type === 5 && typeof flags === 'number' && (flags & ~MESSAGE_FLAGS.EPHEMERAL) !== 0) {
      return 'a deferred response may set only the EPHEMERAL flag';
    }
    if (typeof flags === 'number' && (flags & ~RESPONSE_FLAGS) !== 0)
      return 'data.flags sets a flag a response may not';
    if (body.type === 4) {
      const content = typeof data.content === 'string' ? data.content : '';
      const embeds = Array.isArray(data.embeds) ? data.embeds : [];
      if (content.length > MAX_CONTENT_LENGTH) return `data.content is longer than ${MAX_CONTENT_LENGTH}`;
      if (embeds.length > MAX_EMBEDS) return `data.embeds has more than ${MAX_EMBEDS}`;
      if (content === '' && embeds.length === 0) return 'the message is empty';
    }
    return undefined;
  }

  private usable(applicationId: string, token: string, now: number): InteractionRecord {
    const id = this.idByToken.get(token);
    const record = id === undefined ? undefined : this.byId.get(id);
    // The platform documents that a missed deadline invalidates the token and that tokens last
    // 15 minutes, not the error its webhook routes answer then; an invalid token names no webhook,
    // so the fake answers 10015 Unknown Webhook, as for a token it never issued.
    if (
      !record ||
      record.applicationId !== applicationId ||
      record.outcome !== 'acknowledged' ||
      !record.originalMessage ||
      now - record.sentAt > INTERACTION_TOKEN_LIFETIME_MS
    ) {
      throw platformError.unknownWebhook();
    }
    return record;
  }

  private live(id: string): InteractionRecord {
    const record = this.byId.get(id);
    if (!record) throw new Error(`the fake chat platform delivered no interaction ${id}`);
    return record;
  }

  private notify(id: string): void {
    for (const listener of this.waiters.get(id) ?? []) listener();
  }
}

const defaultIds = new SnowflakeGenerator();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const INTERACTION_MESSAGE_LIMITS = { maxContentLength: MAX_CONTENT_LENGTH, maxEmbeds: MAX_EMBEDS };

import { shardOf } from '@lib/chat-platform';
import { randomBytes } from 'node:crypto';
import { BotAuthority } from '../bot-authority';
import { type PlatformStore, isMember } from '../platform-store';
import type { GatewayDispatch } from './gateway-dispatch';

/** How many dispatches a session keeps for a RESUME to replay. */
const REPLAY_CAPACITY = 1000;

export interface SessionIdentity {
  userId: string;
  intents: number;
  /** [shard id, shard count]. */
  shard: [number, number];
  largeThreshold: number;
}

/** Where a session's dispatches go while a connection carries it. */
export interface SessionTransport {
  send(text: string): void;
  /** False from the moment either side starts closing it. */
  readonly open: boolean;
}

/**
 * What IDENTIFY opens: an account's stream of dispatches, numbered by `s`. It outlives its
 * connection, keeping what it was sent while disconnected, so that a RESUME can replay it.
 */
export class GatewaySession {
  readonly id = randomBytes(16).toString('hex');
  private sequence = 0;
  private readonly sent: { s: number; text: string }[] = [];
  private transport?: SessionTransport;
  /** When the last connection left; undefined while one carries the session. */
  detachedAt?: number;

  constructor(readonly identity: SessionIdentity) {}

  get lastSequence(): number {
    return this.sequence;
  }

  get attached(): SessionTransport | undefined {
    return this.transport;
  }

  /** Whether an open connection carries the session: it follows its shard now. */
  get live(): boolean {
    return this.transport?.open === true;
  }

  attach(transport: SessionTransport): void {
    this.transport = transport;
    this.detachedAt = undefined;
  }

  detach(now: number): void {
    this.transport = undefined;
    this.detachedAt = now;
  }

  dispatch(event: string, data: unknown): void {
    const s = ++this.sequence;
    const text = JSON.stringify({ op: 0, t: event, s, d: data });
    this.sent.push({ s, text });
    if (this.sent.length > REPLAY_CAPACITY) this.sent.shift();
    this.transport?.send(text);
  }

  /** The dispatches sent after `seq`, or undefined when `seq` is unknown or some are no longer kept. */
  sentAfter(seq: number): string[] | undefined {
    if (!Number.isInteger(seq) || seq < 0 || seq > this.sequence) return undefined;
    const oldestKept = this.sent[0]?.s ?? this.sequence + 1;
    if (seq + 1 < oldestKept) return undefined;
    return this.sent.filter((entry) => entry.s > seq).map((entry) => entry.text);
  }

  /** Whether the guild is this session's: the account is in it and it falls on the session's shard. */
  covers(guildId: string, store: PlatformStore): boolean {
    const guild = store.guilds.get(guildId);
    return (
      guild !== undefined &&
      isMember(guild, this.identity.userId) &&
      shardOf(guildId, this.identity.shard[1]) === this.identity.shard[0]
    );
  }

  /** Whether the platform sends this session the event: intent, shard, and membership or permission. */
  receives(dispatch: GatewayDispatch, store: PlatformStore): boolean {
    const { userId, intents, shard } = this.identity;
    if ((intents & dispatch.intent) === 0) return false;
    if (dispatch.recipientId !== undefined) {
      return dispatch.recipientId === userId && shardOf(dispatch.guildId, shard[1]) === shard[0];
    }
    if (!this.covers(dispatch.guildId, store)) return false;
    if (dispatch.permission === undefined) return true;
    const guild = store.guilds.get(dispatch.guildId)!;
    return new BotAuthority(guild, userId).holds(dispatch.permission);
  }
}

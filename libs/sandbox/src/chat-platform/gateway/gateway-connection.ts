import { GatewayCloseCodes, GatewayOpcodes } from 'discord-api-types/v10';
import { type RawData, WebSocket } from 'ws';
import type { GatewaySession, SessionTransport } from './gateway-session';

/** What the gateway does with a connection's requests once the connection has checked their order. */
export interface GatewayProtocol {
  identify(connection: GatewayConnection, data: unknown): void;
  resume(connection: GatewayConnection, data: unknown): void;
  requestGuildMembers(connection: GatewayConnection, data: unknown): void;
  /** The socket closed; `keepSession` when the server closed it resumably. */
  closed(connection: GatewayConnection, keepSession: boolean): void;
}

/** A client may close with these and leave its session to be resumed. */
const SESSION_ENDING_CLOSE_CODES = [1000, 1001];

interface GatewayPayload {
  op: GatewayOpcodes;
  d?: unknown;
}

function parse(data: RawData, isBinary: boolean): GatewayPayload | undefined {
  // Only JSON text frames: the fake serves `encoding=json` without compression.
  if (isBinary) return undefined;
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  const text = bytes.toString('utf8');
  try {
    const payload: unknown = JSON.parse(text);
    const valid =
      typeof payload === 'object' && payload !== null && typeof (payload as { op?: unknown }).op === 'number';
    return valid ? (payload as GatewayPayload) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One WebSocket on the gateway: it says HELLO, acknowledges heartbeats, and passes IDENTIFY,
 * RESUME and REQUEST_GUILD_MEMBERS on in the order the platform allows them, closing with the
 * platform's codes otherwise.
 */
export class GatewayConnection implements SessionTransport {
  session?: GatewaySession;
  /**
   * A zombied connection: the socket stays open but nothing gets through any more, neither
   * heartbeat ACKs nor dispatches (the session keeps those for a RESUME), until the client gives up
   * on it. The platform's "Sending Heartbeats": no ACK means close with a non-1000 code and resume.
   */
  zombie = false;
  /** Resolves once the socket has closed. */
  readonly closed: Promise<void>;
  private closingKeepsSession?: boolean;

  constructor(
    private readonly socket: WebSocket,
    heartbeatIntervalMs: number,
    private readonly protocol: GatewayProtocol,
  ) {
    this.closed = new Promise((resolve) =>
      socket.once('close', (code: number) => {
        const keepSession = this.closingKeepsSession ?? !SESSION_ENDING_CLOSE_CODES.includes(code);
        protocol.closed(this, keepSession);
        resolve();
      }),
    );
    // A broken socket simply ends; its 'close' follows.
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    this.sendOp(GatewayOpcodes.Hello, { heartbeat_interval: heartbeatIntervalMs });
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(text: string): void {
    if (this.open && !this.zombie) this.socket.send(text);
  }

  sendOp(op: GatewayOpcodes, d: unknown): void {
    this.send(JSON.stringify({ op, d, s: null, t: null }));
  }

  /** op 7 RECONNECT once, `ms` from now, if the socket is still open then. */
  reconnectAfter(ms: number): void {
    const timer = setTimeout(() => this.sendOp(GatewayOpcodes.Reconnect, null), ms).unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  /** Closes with the platform's code; the session stays resumable only if `keepSession`. */
  close(code: number, reason: string, keepSession = false): void {
    this.closingKeepsSession ??= keepSession;
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close(code, reason);
    }
  }

  /** Drops the socket without a closing handshake (a peer that does not answer one). */
  terminate(): void {
    this.closingKeepsSession ??= false;
    this.socket.terminate();
  }

  private receive(data: RawData, isBinary: boolean): void {
    const payload = parse(data, isBinary);
    if (!payload) return this.close(GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    switch (payload.op) {
      case GatewayOpcodes.Heartbeat:
        return this.sendOp(GatewayOpcodes.HeartbeatAck, null);
      case GatewayOpcodes.Identify:
      case GatewayOpcodes.Resume:
        if (this.session) return this.close(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
        if (payload.op === GatewayOpcodes.Identify) return this.protocol.identify(this, payload.d);
        return this.protocol.resume(this, payload.d);
      case GatewayOpcodes.RequestGuildMembers:
      case GatewayOpcodes.PresenceUpdate:
      case GatewayOpcodes.VoiceStateUpdate:
      case GatewayOpcodes.RequestSoundboardSounds:
      case GatewayOpcodes.RequestChannelInfo:
        if (!this.session) return this.close(GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
        // The others are accepted and ignored: the fake has no presences, voice or soundboards.
        if (payload.op === GatewayOpcodes.RequestGuildMembers)
          this.protocol.requestGuildMembers(this, payload.d);
        return;
      // What only the platform sends, and any number it does not know.
      case GatewayOpcodes.Dispatch:
      case GatewayOpcodes.Hello:
      case GatewayOpcodes.HeartbeatAck:
      case GatewayOpcodes.InvalidSession:
      case GatewayOpcodes.Reconnect:
      default:
        return this.close(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    }
  }
}

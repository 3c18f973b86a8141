import { type DynamicModule, Module } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@lib/contracts';
import { redactUrl } from '@lib/problem-details';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { v7 as uuidv7 } from 'uuid';
import { currentRequestId } from './request-context';
import { currentService } from './service-context';

/** Headers and fields that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'req.headers["provider-signature"]',
  // The OAuth callback's code and state (the logged URL is redacted by the req serializer).
  'req.query.code',
  'req.query.state',
  // The provider's one-time card key on the checkout's return address (see redactUrl).
  'req.query.authKey',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.billingKey',
  '*.billing_key',
  '*.cardNumber',
  '*.authKey',
];

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

/** Keeps a caller's request id (so one id follows a request across services) or mints one. */
export function requestIdFor(req: IncomingMessage, res: ServerResponse): string {
  const header = req.headers[REQUEST_ID_HEADER];
  const candidate = Array.isArray(header) ? header[0] : header;
  const id = candidate && REQUEST_ID_PATTERN.test(candidate) ? candidate : uuidv7();
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/**
 * Middleware: gives the request its id (`requestIdFor`) as the first thing the app does with it.
 * The logger's own middleware keeps an id already given.
 */
export function assignRequestId(
  req: IncomingMessage & { id?: string | number },
  res: ServerResponse,
  next: () => void,
): void {
  req.id ??= requestIdFor(req, res);
  next();
}

@Module({})
export class LoggingModule {
  /** JSON logs on stdout; every line carries the service name and, inside a request, its id. */
  static forService(service: string, level: string): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level,
            // The service comes from the mixin: in standalone mode one process runs them all, and
            // Nest's static logger is whichever app was created last, so the line names the
            // service whose work is running (runAsService), else this app's.
            base: null,
            genReqId: requestIdFor,
            customAttributeKeys: { reqId: 'request_id' },
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            // The OAuth code and state are credentials: logged URLs (the callback's, and the
            // login's redirect to the authorize page) go without them.
            serializers: {
              req: (req: { url?: string }) => ({ ...req, url: req.url && redactUrl(req.url) }),
              res: (res: { headers?: Record<string, unknown> }) => {
                const location = res.headers?.location;
                if (typeof location !== 'string') return res;
                return { ...res, headers: { ...res.headers, location: redactUrl(location) } };
              },
            },
            // Probes would drown everything else.
            autoLogging: { ignore: (req) => req.url?.startsWith('/health') ?? false },
            mixin: () => {
              const requestId = currentRequestId();
              const fields = { service: currentService() ?? service };
              return requestId ? { ...fields, request_id: requestId } : fields;
            },
          },
        }),
      ],
    };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@lib/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { v7 as uuidv7 } from 'uuid';
import { currentRequestId } from './request-context';

/** Headers and fields that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'req.headers["provider-signature"]',
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
            base: { service },
            genReqId: requestIdFor,
            customAttributeKeys: { reqId: 'request_id' },
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            // Probes would drown everything else.
            autoLogging: { ignore: (req) => req.url?.startsWith('/health') ?? false },
            mixin: () => {
              const requestId = currentRequestId();
              return requestId ? { request_id: requestId } : {};
            },
          },
        }),
      ],
    };
  }
}

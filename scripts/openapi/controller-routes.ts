import 'reflect-metadata';
import { ParseUUIDPipe, RequestMethod, type Type } from '@nestjs/common';
import {
  CONTROLLER_WATERMARK,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { mergeProblemAnswers, type ProblemAnswerMap, problemAnswersOn } from '@lib/problem-details';
import { ApiExcludeEndpoint, ApiParam } from '@nestjs/swagger';
import { apiSourceFiles, exportsOf, isControllerFile } from './app-sources';

function isController(value: unknown): value is Type {
  return typeof value === 'function' && Reflect.getMetadata(CONTROLLER_WATERMARK, value) === true;
}

/** Every exported controller class of every app, in file order. */
export async function discoverControllers(): Promise<Type[]> {
  return (await exportsOf(apiSourceFiles().filter(isControllerFile))).filter(isController);
}

function* handlersOf(controller: Type): Generator<[Record<string, unknown>, string, PropertyDescriptor]> {
  const prototype = controller.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    const handler = descriptor?.value as unknown;
    if (name === 'constructor' || !descriptor || typeof handler !== 'function') continue;
    if (Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
    yield [prototype, name, descriptor];
  }
}

/**
 * Hides catch-all handlers (the gateway's forwarding: every method, wildcard paths): they are no
 * operation of their own, and the services they forward to document the real ones.
 */
export function excludeCatchAllRoutes(controllers: Type[]): void {
  for (const controller of controllers) {
    for (const [prototype, name, descriptor] of handlersOf(controller)) {
      const handler = descriptor.value as object;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      if (method === RequestMethod.ALL || paths.some((path) => path.includes('*'))) {
        ApiExcludeEndpoint()(prototype, name, descriptor);
      }
    }
  }
}

interface RouteArgument {
  data?: unknown;
  pipes?: unknown[];
}

/** A path parameter behind ParseUUIDPipe is a UUID, which swagger cannot see from a pipe. */
export function describeUuidPathParameters(controllers: Type[]): void {
  for (const controller of controllers) {
    for (const [prototype, name, descriptor] of handlersOf(controller)) {
      const routeArguments = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
        string,
        RouteArgument
      >;
      for (const [key, argument] of Object.entries(routeArguments)) {
        const isPathParameter =
          key.startsWith(`${RouteParamtypes.PARAM}:`) && typeof argument.data === 'string';
        const isUuid = argument.pipes?.some(
          (pipe) => pipe === ParseUUIDPipe || pipe instanceof ParseUUIDPipe,
        );
        if (isPathParameter && isUuid) {
          ApiParam({ name: argument.data as string, schema: { type: 'string', format: 'uuid' } })(
            prototype,
            name,
            descriptor,
          );
        }
      }
    }
  }
}

/**
 * The problem answers each route declares (`@ProblemAnswers`, on the route, its controller or its
 * guard's decorator), by operation id (`Controller_handler`). `publish` adds them to the document
 * with the answers every route of a kind gives (no session, rate limit, bad body); they are not
 * swagger decorators, which would replace the route's default success answer.
 */
export function declaredProblemAnswers(controllers: Type[]): Map<string, ProblemAnswerMap> {
  const declared = new Map<string, ProblemAnswerMap>();
  for (const controller of controllers) {
    for (const [, name, descriptor] of handlersOf(controller)) {
      const answers = mergeProblemAnswers(
        problemAnswersOn(controller),
        problemAnswersOn(descriptor.value as object),
      );
      declared.set(`${controller.name}_${name}`, answers);
    }
  }
  return declared;
}

/** The Problem schema, with the codes it may carry. */
export function problemSchema(codes: readonly string[]): Record<string, unknown> {
  return {
    allOf: [
      { $ref: '#/components/schemas/Problem' },
      { type: 'object', properties: { code: { type: 'string', enum: [...codes].sort() } } },
    ],
  };
}

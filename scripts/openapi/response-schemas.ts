import path from 'node:path';
import * as ts from 'typescript';
import { apiSourceFiles, isControllerFile, REPO_ROOT } from './app-sources';
import { repositoryProgram } from '../typescript-program';

/**
 * Completes an OpenAPI document whose success answers say only `object` (a handler that returns an
 * interface, which @nestjs/swagger's plugin cannot describe) with schemas derived from what each
 * handler is declared to return, read by the TypeScript checker from the controllers' source.
 * Answers the document already describes (a DTO class) are left as they are. The client is then
 * typed by the server's own declarations, never by a hand-written copy.
 */

type Schema = Record<string, unknown>;
interface Operation {
  operationId?: string;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const SUCCESS = /^2\d\d$/;

/** `SnapshotsController_list` (or `..._cancel[1]` for a second route of one handler) -> its method. */
function handlerIndex(program: ts.Program): Map<string, ts.MethodDeclaration> {
  const index = new Map<string, ts.MethodDeclaration>();
  for (const file of program.getSourceFiles()) {
    if (!isControllerFile(file.fileName) || !file.fileName.startsWith(path.join(REPO_ROOT, 'apps'))) continue;
    for (const statement of file.statements) {
      if (!ts.isClassDeclaration(statement) || !statement.name) continue;
      for (const member of statement.members) {
        if (ts.isMethodDeclaration(member) && ts.isIdentifier(member.name)) {
          index.set(`${statement.name.text}_${member.name.text}`, member);
        }
      }
    }
  }
  return index;
}

/** Bare `{ type: 'object' }` or nothing at all: the document does not know the answer's shape. */
function isUndescribed(schema: Schema | undefined): boolean {
  return !schema || (Object.keys(schema).length === 1 && schema.type === 'object');
}

class SchemaWriter {
  private readonly names = new Map<ts.Type, string>();

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly schemas: Record<string, Schema>,
  ) {}

  schemaOf(type: ts.Type): Schema {
    const named = this.nameOf(type);
    if (named) return { $ref: `#/components/schemas/${this.define(named, type)}` };
    return this.describe(type);
  }

  /** A component name for interfaces and aliases that take no type arguments; others are inlined. */
  private nameOf(type: ts.Type): string | undefined {
    if (type.aliasSymbol && !type.aliasTypeArguments?.length) return type.aliasSymbol.name;
    const isObject = (type.flags & ts.TypeFlags.Object) !== 0;
    const objectFlags = isObject ? (type as ts.ObjectType).objectFlags : 0;
    if (objectFlags & (ts.ObjectFlags.Interface | ts.ObjectFlags.Class)) {
      const reference = type as ts.TypeReference;
      if (!this.checker.getTypeArguments(reference).length && type.symbol.name !== 'Date') {
        return type.symbol.name;
      }
    }
    return undefined;
  }

  private define(name: string, type: ts.Type): string {
    const known = this.names.get(type);
    if (known) return known;
    let unique = name;
    for (let n = 2; this.schemas[unique] && ![...this.names.values()].includes(unique); n++) {
      unique = `${name}${n}`;
    }
    this.names.set(type, unique);
    this.schemas[unique] = this.describe(type);
    return unique;
  }

  private describe(type: ts.Type): Schema {
    const { checker } = this;
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (type.flags & ts.TypeFlags.StringLiteral) {
      return { type: 'string', enum: [(type as ts.StringLiteralType).value] };
    }
    if (type.flags & ts.TypeFlags.NumberLiteral) {
      return { type: 'number', enum: [(type as ts.NumberLiteralType).value] };
    }
    if (type.flags & ts.TypeFlags.StringLike) return { type: 'string' };
    if (type.flags & ts.TypeFlags.NumberLike) return { type: 'number' };
    if (type.flags & ts.TypeFlags.BooleanLike) return { type: 'boolean' };
    if (type.flags & ts.TypeFlags.BigIntLike) return { type: 'string' };
    if (type.isUnion()) return this.union(type.types);
    if (type.symbol?.name === 'Date') return { type: 'string', format: 'date-time' };
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      const [item] = checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: item ? this.schemaOf(item) : {} };
    }
    return this.object(type);
  }

  private union(members: ts.Type[]): Schema {
    const nullable = members.some((member) => member.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined));
    const rest = members.filter((member) => !(member.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
    let schema: Schema;
    if (rest.length > 0 && rest.every((member) => member.flags & ts.TypeFlags.StringLiteral)) {
      schema = { type: 'string', enum: rest.map((member) => (member as ts.StringLiteralType).value) };
    } else if (rest.length > 0 && rest.every((member) => member.flags & ts.TypeFlags.BooleanLiteral)) {
      schema = { type: 'boolean' };
    } else if (rest.length === 1) {
      schema = this.schemaOf(rest[0]);
    } else {
      schema = { anyOf: rest.map((member) => this.schemaOf(member)) };
    }
    return nullable ? orNull(schema) : schema;
  }

  private object(type: ts.Type): Schema {
    const { checker } = this;
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (declaration && (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration))) continue;
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      const propertyType = checker.getTypeOfSymbol(property);
      // An optional property's type carries `undefined` (absent); a `null` it also takes stays.
      const withNull =
        optional &&
        propertyType.isUnion() &&
        propertyType.types.some((member) => member.flags & ts.TypeFlags.Null);
      let schema = this.schemaOf(optional ? checker.getNonNullableType(propertyType) : propertyType);
      if (withNull) schema = orNull(schema);
      const description = ts.displayPartsToString(property.getDocumentationComment(checker)).trim();
      properties[property.name] = description && !('$ref' in schema) ? { ...schema, description } : schema;
      if (!optional) required.push(property.name);
    }
    const schema: Schema = { type: 'object', properties };
    if (required.length) schema.required = required;
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    if (index) schema.additionalProperties = this.schemaOf(index.type);
    return schema;
  }
}

/** Fills in every success answer the document leaves undescribed; returns how many it filled. */
export function completeResponseSchemas(document: Document): number {
  const program = repositoryProgram(apiSourceFiles().filter(isControllerFile));
  const checker = program.getTypeChecker();
  const handlers = handlerIndex(program);
  const writer = new SchemaWriter(checker, document.components.schemas);
  let completed = 0;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const handler = handlers.get((operation.operationId ?? '').replace(/\[\d+\]$/, ''));
      if (!handler) continue;
      const signature = checker.getSignatureFromDeclaration(handler);
      if (!signature) continue;
      const returned = checker.getAwaitedType(checker.getReturnTypeOfSignature(signature));
      if (!returned || returned.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!SUCCESS.test(status) || status === '204') continue;
        const current = response.content?.['application/json']?.schema;
        if (!isUndescribed(current)) continue;
        response.content = { 'application/json': { schema: writer.schemaOf(returned) } };
        completed++;
      }
    }
  }
  return completed;
}

/**
 * OpenAPI 3.0: a reference cannot carry `nullable` itself, and `nullable` needs a `type` beside it.
 * A choice of types (`string | number | null`) has no `type` of its own: its first choice takes the
 * null (one is enough, and the generated client would repeat `| null` for each).
 */
function orNull(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) {
    const [first, ...others] = schema.anyOf as Schema[];
    return { ...schema, anyOf: [orNull(first), ...others] };
  }
  return '$ref' in schema
    ? { type: 'object', allOf: [schema], nullable: true }
    : { ...schema, nullable: true };
}

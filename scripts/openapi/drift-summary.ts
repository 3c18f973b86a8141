import type { OpenAPIObject } from '@nestjs/swagger';

const MAX_LINES = 40;

/** Changed lines by a longest-common-subsequence diff: `-` committed, `+` generated, with line numbers. */
function changedLines(before: string[], after: string[]): string[] {
  const common = Array.from({ length: before.length + 1 }, () => new Uint32Array(after.length + 1));
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i][j] =
        before[i] === after[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      i++;
      j++;
    } else if (i < before.length && (j === after.length || common[i + 1][j] >= common[i][j + 1])) {
      lines.push(`- ${i + 1}: ${before[i++]}`);
    } else {
      lines.push(`+ ${j + 1}: ${after[j++]}`);
    }
  }
  return lines;
}

function parse(text: string): Partial<OpenAPIObject> {
  try {
    return JSON.parse(text) as OpenAPIObject;
  } catch {
    return {};
  }
}

/** `GET /api/v1/x` and `schema X`, each with its JSON, to say which ones came, went or changed. */
function members(document: Partial<OpenAPIObject>): Map<string, string> {
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [
      `${method.toUpperCase()} ${path}`,
      JSON.stringify(operation),
    ]),
  );
  const schemas = Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [
    `schema ${name}`,
    JSON.stringify(schema),
  ]);
  return new Map([...operations, ...schemas] as [string, string][]);
}

function openApiChanges(before: string, after: string): string[] {
  const old = members(parse(before));
  const next = members(parse(after));
  const names = [...new Set([...old.keys(), ...next.keys()])].sort();
  return names.flatMap((name) => {
    if (!old.has(name)) return [`    added    ${name}`];
    if (!next.has(name)) return [`    removed  ${name}`];
    return old.get(name) === next.get(name) ? [] : [`    changed  ${name}`];
  });
}

/** What a reader needs to see why a committed file is stale: operations and schemas, then lines. */
export function describeDrift(file: string, before: string, after: string): string {
  const changes = file.endsWith('.json') ? openApiChanges(before, after) : [];
  const summary = changes.length ? ['  operations and schemas (committed -> generated):', ...changes] : [];
  const lines = changedLines(before.split('\n'), after.split('\n'));
  const shown = [
    '  lines (- committed, + generated):',
    ...lines.slice(0, MAX_LINES).map((line) => `    ${line}`),
  ];
  if (lines.length > MAX_LINES) shown.push(`    ... ${lines.length - MAX_LINES} more changed lines`);
  return [...summary, ...shown].join('\n');
}

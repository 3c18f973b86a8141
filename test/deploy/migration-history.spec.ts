import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SERVICE_DATABASES } from '../../scripts/service-databases';

/**
 * Migrations are history: a database migrated yesterday must equal one migrated from scratch
 * today, so the statements a committed migration runs never change, however its code is arranged
 * (shared DDL helpers, a statement-list base class). Each migration is run against a recording
 * query runner, once with every query answering no rows and once with every query answering a row
 * (the branches of a migration that looks before it acts), and what it sent (statements,
 * parameters, whether it runs in a transaction) is compared with the digest recorded in
 * migration-history.json when it was written.
 *
 * A new migration: add the line the failure prints to migration-history.json.
 */
const RECORDED = JSON.parse(readFileSync(join(__dirname, 'migration-history.json'), 'utf8')) as Record<
  string,
  Record<string, string>
>;

type Call = [sql: string, params?: unknown[]];

/** A query runner that records what `query` is given and refuses anything else a migration might try. */
function recordingQueryRunner(calls: Call[], answer: unknown[]): QueryRunner {
  const query = (sql: string, params?: unknown[]) => {
    calls.push(params === undefined ? [sql] : [sql, params]);
    return Promise.resolve(answer);
  };
  return new Proxy(
    { query },
    {
      get(_target, property) {
        if (property === 'query') return query;
        if (property === 'then') return undefined;
        throw new Error(
          `a migration used QueryRunner.${String(property)}, which the history check does not record`,
        );
      },
    },
  ) as unknown as QueryRunner;
}

async function record(migration: MigrationInterface) {
  const run = async (step: 'up' | 'down', answer: unknown[]) => {
    const calls: Call[] = [];
    await migration[step](recordingQueryRunner(calls, answer));
    return calls;
  };
  return {
    transaction: migration.transaction ?? true,
    up: await run('up', []),
    upWhenFound: await run('up', [{ found: 1 }]),
    down: await run('down', []),
    downWhenFound: await run('down', [{ found: 1 }]),
  };
}

const cases = Object.entries(SERVICE_DATABASES).flatMap(([service, database]) =>
  (database.migrations as (new () => MigrationInterface)[]).map((Migration) => {
    const migration = new Migration();
    return { service, name: migration.name ?? Migration.name, migration };
  }),
);

describe('migration history', () => {
  it.each(cases)(
    '$service $name runs the statements it was committed with',
    async ({ service, name, migration }) => {
      const recorded = await record(migration);
      const digest = createHash('sha256').update(JSON.stringify(recorded)).digest('hex');
      const expected = RECORDED[service]?.[name];
      if (expected === undefined) {
        throw new Error(
          `${service} ${name} is not in migration-history.json; add it under "${service}": "${name}": "${digest}"`,
        );
      }
      if (digest !== expected) {
        throw new Error(
          `${service} ${name} no longer runs what it was committed with; it now runs:\n${JSON.stringify(recorded, null, 2)}`,
        );
      }
    },
  );

  it('lists only migrations that exist', () => {
    const present = new Set(cases.map(({ service, name }) => `${service} ${name}`));
    const listed = Object.entries(RECORDED).flatMap(([service, names]) =>
      Object.keys(names).map((name) => `${service} ${name}`),
    );
    expect(listed.filter((entry) => !present.has(entry))).toEqual([]);
  });
});

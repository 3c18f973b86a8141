import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

/**
 * One way to do each thing (docs/decisions/data-access.md): all SQL lives in `*.repository.ts` (and migrations);
 * services, controllers, jobs and handlers call repositories. This scans the source of apps/ and
 * libs/ (not specs, not migrations, not the dashboard) for database access outside repositories.
 *
 * A file may hold SQL elsewhere only
 * - with a `sql-placement-exempt: <why>` comment, for a one-off that is no data access (a health
 *   probe's SELECT 1, role and schema provisioning), or
 * - on ALLOWED_FOR_NOW below: files of apps another change is reshaping, to be moved and then
 *   taken off the list (the test fails while a listed file holds no SQL any more, so it shrinks).
 */
const ROOT = join(__dirname, '..', '..');

/**
 * Files still holding SQL outside a repository, in code this change could not edit. Each one's
 * SQL moves into its feature's `*.repository.ts`; then delete its line here.
 */
const ALLOWED_FOR_NOW: Record<string, string> = {};

/** What a scan found: a line of a file and what on it is database access. */
export interface SqlFinding {
  line: number;
  what: string;
}

const DML = /\b(SELECT\s[\s\S]*\bFROM\b|SELECT\s+1\b|INSERT\s+INTO\b|UPDATE\s+\S+\s+SET\b|DELETE\s+FROM\b)/;
const ENTITY_ACCESS = new Set(['createQueryBuilder', 'getRepository']);

/** Database access in one source text: `.query(<sql>)` calls, entity repositories, SQL strings. */
export function findSql(fileName: string, text: string): SqlFinding[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const findings: SqlFinding[] = [];
  const at = (node: ts.Node, what: string) =>
    findings.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, what });
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text;
      const [first] = node.arguments;
      if (name === 'query' && first && (ts.isStringLiteral(first) || ts.isTemplateLiteral(first))) {
        at(node, '.query(...) with SQL');
      }
      if (ENTITY_ACCESS.has(name)) at(node, `${name}(...)`);
    }
    if (ts.isDecorator(node) && /^InjectRepository\b/.test(node.expression.getText(source))) {
      at(node, '@InjectRepository');
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (DML.test(node.text)) at(node, 'SQL string');
    } else if (ts.isTemplateExpression(node)) {
      const literal = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
      if (DML.test(literal)) at(node, 'SQL template');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' || entry.name === 'migrations' ? [] : sourceFiles(path);
    }
    return entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !entry.name.endsWith('.spec.ts') &&
      !entry.name.endsWith('.test.ts')
      ? [path]
      : [];
  });
}

const EXEMPT = /sql-placement-exempt:\s*\S/;

function scan(): { file: string; findings: SqlFinding[]; exempt: boolean }[] {
  const files = [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))]
    .map((path) => relative(ROOT, path).split('\\').join('/'))
    .filter((file) => !file.startsWith('apps/dashboard/'));
  return files.map((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    return { file, findings: findSql(file, text), exempt: EXEMPT.test(text) };
  });
}

describe('SQL placement', () => {
  const scanned = scan();
  const holdingSql = scanned.filter((entry) => entry.findings.length > 0);

  it('finds database access in what a service might hold (the check can fail)', () => {
    const service = `
      export class GuildService {
        constructor(private readonly dataSource: DataSource) {}
        find(id: string) { return this.dataSource.query<Row[]>('SELECT * FROM recovery.guilds WHERE id = $1', [id]); }
        count() { return this.dataSource.getRepository(Guild).count(); }
        remove(schema: string) { return run(\`DELETE FROM "\${schema}".guilds WHERE id = $1\`); }
        @InjectRepository(Guild) repository: Repository<Guild>;
      }`;
    expect(findSql('guild.service.ts', service).map((finding) => finding.what)).toEqual([
      '.query(...) with SQL',
      'SQL string',
      'getRepository(...)',
      'SQL template',
      '@InjectRepository',
    ]);
  });

  it('leaves code that is no database access alone', () => {
    const code = `
      const form = FormBody.query(query, ['limit']);
      const progress = handle.query<Progress>(PROGRESS_QUERY);
      logger.log('select a guild, then update the settings');
      const message = 'Select the snapshot to restore';`;
    expect(findSql('routes.ts', code)).toEqual([]);
  });

  it('keeps SQL in *.repository.ts (and migrations) only', () => {
    const misplaced = holdingSql
      .filter(({ file, exempt }) => !file.endsWith('.repository.ts') && !exempt && !ALLOWED_FOR_NOW[file])
      .map(({ file, findings }) => `${file}: ${findings.map((f) => `line ${f.line} ${f.what}`).join(', ')}`);
    expect(misplaced).toEqual([]);
  });

  it('lists only files that still hold SQL, so the allow-list shrinks as they are fixed', () => {
    const stale = Object.keys(ALLOWED_FOR_NOW).filter(
      (file) => !existsSync(join(ROOT, file)) || !holdingSql.some((entry) => entry.file === file),
    );
    expect(stale).toEqual([]);
  });

  it('exempts by comment only files that hold SQL', () => {
    const needless = scanned
      .filter(({ exempt, findings }) => exempt && findings.length === 0)
      .map(({ file }) => file);
    expect(needless).toEqual([]);
  });
});

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The timing table `npm test` prints at its end: how long each step took, then the slowest test
 * files of every Jest step. scripts/test.sh writes one line per finished step to
 * `.test-timings/steps.tsv` (name, seconds) and has each Jest step write its results as JSON
 * (`--json --outputFile`) beside it; this script only reads them. Nothing here can fail the run.
 */
const DIR = path.resolve(__dirname, '..', '.test-timings');
const SLOWEST = 10;

/** The part of Jest's `--json` output read here. */
interface JestResults {
  testResults: { name: string; startTime: number; endTime: number; status: string }[];
}

interface FileTime {
  step: string;
  file: string;
  seconds: number;
}

function seconds(value: number): string {
  return `${value.toFixed(1).padStart(7)} s`;
}

function stepTimes(): [string, number][] {
  const file = path.join(DIR, 'steps.tsv');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('\t'))
    .map((line) => {
      const [name, value] = line.split('\t');
      return [name, Number(value)];
    });
}

function fileTimes(): FileTime[] {
  if (!existsSync(DIR)) return [];
  const root = path.resolve(__dirname, '..');
  return readdirSync(DIR)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const results = JSON.parse(readFileSync(path.join(DIR, name), 'utf8')) as JestResults;
      return results.testResults.map((result) => ({
        step: name.replace(/\.json$/, ''),
        file: path.relative(root, result.name),
        seconds: (result.endTime - result.startTime) / 1000,
      }));
    });
}

function main(): void {
  const steps = stepTimes();
  if (steps.length > 0) {
    console.log('\n== timings: each step');
    for (const [name, value] of steps) console.log(`${seconds(value)}  ${name}`);
    const total = steps.reduce((sum, [, value]) => sum + value, 0);
    console.log(`${seconds(total)}  total`);
  }
  const files = fileTimes().sort((a, b) => b.seconds - a.seconds);
  if (files.length > 0) {
    console.log(`\n== timings: the ${Math.min(SLOWEST, files.length)} slowest test files`);
    for (const { step, file, seconds: value } of files.slice(0, SLOWEST)) {
      console.log(`${seconds(value)}  ${step.padEnd(12)} ${file}`);
    }
  }
}

main();

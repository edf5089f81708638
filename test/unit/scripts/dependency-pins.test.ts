import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/project-root';

/*
 * The AWS SDK pins must all come from one AWS SDK release, pinned exactly.
 *
 * "One release" here means:
 * - every @aws-sdk/client-* package and @aws-sdk/lib-dynamodb carries the same version (the SDK's
 *   release number, e.g. 3.1141.0). The SDK publishes a package only when it changed, so the chosen
 *   release is the newest one at which every package we use was published.
 * - @aws-sdk/util-dynamodb is versioned on its own line (3.996.x); it is pinned at the version the
 *   chosen lib-dynamodb release depends on (the floor of lib-dynamodb's own range in package-lock.json).
 * - every pin is an exact version: no ^, ~, ranges or tags.
 */

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface PackageLock {
  packages: Record<string, { version: string; dependencies?: Record<string, string> }>;
}

const EXACT_VERSION = /^\d+\.\d+\.\d+$/;
const SEPARATELY_VERSIONED = '@aws-sdk/util-dynamodb';

const packageJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as PackageJson;
const packageLock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as PackageLock;

const awsSdkPins = Object.entries({
  ...packageJson.dependencies,
  ...packageJson.devDependencies,
}).filter(([name]) => name.startsWith('@aws-sdk/'));

/** Lists every way the pins break the one-release rule; empty when they follow it. */
function awsSdkPinProblems(pins: [string, string][], lock: PackageLock): string[] {
  const problems = pins
    .filter(([, version]) => !EXACT_VERSION.test(version))
    .map(([name, version]) => `${name} is pinned at "${version}", not an exact version`);
  const releasePins = pins.filter(([name]) => name !== SEPARATELY_VERSIONED);
  const releases = new Set(releasePins.map(([, version]) => version));
  if (releases.size > 1) {
    problems.push(
      `@aws-sdk packages come from ${releases.size} releases: ${releasePins
        .map(([name, version]) => `${name}@${version}`)
        .join(', ')}`,
    );
  }
  const utilPin = pins.find(([name]) => name === SEPARATELY_VERSIONED)?.[1];
  const libRange = lock.packages['node_modules/@aws-sdk/lib-dynamodb']?.dependencies?.[SEPARATELY_VERSIONED];
  if (utilPin !== undefined && libRange !== undefined && libRange.replace(/^[\^~]/, '') !== utilPin) {
    problems.push(
      `${SEPARATELY_VERSIONED} is pinned at ${utilPin} but the pinned lib-dynamodb release depends on ${libRange}`,
    );
  }
  for (const [name, version] of pins) {
    const locked = lock.packages[`node_modules/${name}`]?.version;
    if (locked !== version) {
      problems.push(`${name} is pinned at ${version} but package-lock.json installs ${locked}`);
    }
  }
  return problems;
}

describe('AWS SDK dependency pins', () => {
  it('pins every @aws-sdk package exactly, from one AWS SDK release', () => {
    expect(awsSdkPins.length).toBeGreaterThan(0);
    expect(awsSdkPinProblems(awsSdkPins, packageLock)).toEqual([]);
  });

  it('reports pins from different releases, ranges and a mismatched util-dynamodb', () => {
    const lock: PackageLock = {
      packages: {
        'node_modules/@aws-sdk/client-sqs': { version: '3.1169.0' },
        'node_modules/@aws-sdk/client-kinesis': { version: '3.1143.0' },
        'node_modules/@aws-sdk/lib-dynamodb': {
          version: '3.1141.0',
          dependencies: { '@aws-sdk/util-dynamodb': '^3.996.9' },
        },
        'node_modules/@aws-sdk/util-dynamodb': { version: '3.996.8' },
      },
    };
    const problems = awsSdkPinProblems(
      [
        ['@aws-sdk/client-sqs', '3.1169.0'],
        ['@aws-sdk/client-kinesis', '^3.1143.0'],
        ['@aws-sdk/lib-dynamodb', '3.1141.0'],
        ['@aws-sdk/util-dynamodb', '3.996.8'],
      ],
      lock,
    );
    expect(problems).toEqual([
      '@aws-sdk/client-kinesis is pinned at "^3.1143.0", not an exact version',
      '@aws-sdk packages come from 3 releases: @aws-sdk/client-sqs@3.1169.0, @aws-sdk/client-kinesis@^3.1143.0, @aws-sdk/lib-dynamodb@3.1141.0',
      '@aws-sdk/util-dynamodb is pinned at 3.996.8 but the pinned lib-dynamodb release depends on ^3.996.9',
      '@aws-sdk/client-kinesis is pinned at ^3.1143.0 but package-lock.json installs 3.1143.0',
    ]);
  });
});

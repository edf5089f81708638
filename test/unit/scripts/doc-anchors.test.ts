import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * Every link into a Markdown document of the repository resolves: a document and anchor named in code, tests and
 * scripts, and `[text](x.md#anchor)` / `[text](#anchor)` in the documents themselves. A heading renamed
 * without its references would otherwise leave readers at the top of a long page.
 */

const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.data', 'cdk.out', 'dist']);
const TEXT_FILE = /\.(ts|mts|mjs|cjs|js|json|md|yaml|yml|html|css|sh)$|^run$|Dockerfile$/;

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    if (SKIPPED_FOLDERS.has(name)) return [];
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return TEXT_FILE.test(name) ? [path] : [];
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const text = (heading[1] as string)
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase();
    const base = text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Reference {
  readonly from: string;
  readonly document: string;
  readonly anchor: string;
}

function referencesIn(file: string, text: string): Reference[] {
  const from = relative(PROJECT_ROOT, file);
  if (file.endsWith('.md')) {
    return [...text.matchAll(/\]\(([^)\s#]*\.md)?#([^)\s]+)\)/g)].map((match) => ({
      from,
      document: match[1] === undefined ? file : resolve(dirname(file), match[1]),
      anchor: match[2] as string,
    }));
  }
  return [...text.matchAll(/(?<![\w./-])((?:docs\/[\w./-]+|README)\.md)#([\w-]+)/g)].map((match) => ({
    from,
    document: join(PROJECT_ROOT, match[1] as string),
    anchor: match[2] as string,
  }));
}

describe('links to Markdown anchors', () => {
  it('reads GitHub anchors the way GitHub makes them', () => {
    const anchors = headingAnchors(
      '# Polygon.io / Massive\n## REST API: API Gateway REST API (v1), not an HTTP API\n## Notes\n## Notes\n```\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual([
      'polygonio--massive',
      'rest-api-api-gateway-rest-api-v1-not-an-http-api',
      'notes',
      'notes-1',
    ]);
  });

  it('every reference from code, tests, scripts and docs names an existing document and heading', () => {
    const anchorsOf = new Map<string, Set<string> | undefined>();
    const anchors = (document: string) => {
      if (!anchorsOf.has(document)) {
        let text: string | undefined;
        try {
          text = readFileSync(document, 'utf8');
        } catch {
          text = undefined;
        }
        anchorsOf.set(document, text === undefined ? undefined : headingAnchors(text));
      }
      return anchorsOf.get(document);
    };
    const references = filesUnder(PROJECT_ROOT).flatMap((file) =>
      referencesIn(file, readFileSync(file, 'utf8')),
    );
    const dead = references
      .filter(({ document, anchor }) => !anchors(document)?.has(anchor))
      .map(({ from, document, anchor }) => `${from} -> ${relative(PROJECT_ROOT, document)}#${anchor}`);
    expect(references.length).toBeGreaterThan(100);
    expect(dead).toEqual([]);
  });
});

import { Parser } from '@asyncapi/parser';

const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

export interface AsyncApiFindings {
  /** Errors and warnings: the lint fails on any. */
  readonly failing: string[];
  /** Information and hints (such as "a newer AsyncAPI version exists"): printed, not failing. */
  readonly notes: string[];
}

/**
 * What the AsyncAPI parser finds in a document (its validation and its Spectral rules), one line each with
 * severity, rule and path. Runs offline: the document has no remote `$ref`.
 */
export async function asyncApiDiagnostics(source: string): Promise<AsyncApiFindings> {
  const { diagnostics } = await new Parser().parse(source);
  const line = (diagnostic: (typeof diagnostics)[number]) =>
    `${SEVERITY[diagnostic.severity] ?? diagnostic.severity} ${String(diagnostic.code)} at ` +
    `${diagnostic.path.join('.') || '(root)'}: ${diagnostic.message}`;
  return {
    failing: diagnostics.filter((diagnostic) => diagnostic.severity <= 1).map(line),
    notes: diagnostics.filter((diagnostic) => diagnostic.severity > 1).map(line),
  };
}

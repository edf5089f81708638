import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * The AwsSolutions findings on a construct and everything below it that nobody acknowledged, as
 * `<severity> <rule>: <construct paths>` (cdk-nag 3 is a policy-validation plugin: findings come back as a
 * report, not as annotations).
 */
export function nagFindingsOf(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks(scope.node.root, { verbose: true }).validateScope(scope);
  return report.violations.map(
    (violation) =>
      `${violation.severity} ${violation.ruleName}: ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`,
  );
}

export interface Acknowledgement {
  /** The path of the construct that acknowledged the rule. */
  readonly path: string;
  readonly rule: string;
  readonly reason: string;
}

/** Every rule acknowledged (Validations.acknowledge) on a construct or below it, with its reason. */
export function acknowledgementsOf(scope: IConstruct): Acknowledgement[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
          path: construct.node.path,
          rule: rule.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

/**
 * `<path> <rule>` of the acknowledgements beyond those every ServiceFunction makes (AwsSolutions-L1, the
 * X-Ray `Resource::*` wildcard, bindTable's `/index/*` wildcards).
 */
export function specificAcknowledgements(acknowledged: readonly Acknowledgement[]): string[] {
  return acknowledged
    .map(({ path, rule }) => `${path} ${rule}`)
    .filter((entry) => !/AwsSolutions-L1$|IAM5\[Resource::\*\]$|\/index\/\*\]$/.test(entry));
}

import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { TABLE_IDS, type TableAccess, type TableId } from '#contracts/tables';
import type { TableMap } from '#lib/constructs/data-tables';
import { GET_ACTIONS, type ServiceFunction } from '#lib/constructs/service-function';
import {
  actionsOf,
  logicalIdOf,
  type PolicyStatementJson,
  policyStatementsOfRole,
  statementTargets,
} from './template.ts';

export const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];
export const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];

/** Every Allow statement of the policies attached to a service function's role. */
export function allowStatementsOf(template: Template, fn: ServiceFunction): PolicyStatementJson[] {
  const role = fn.lambda.role;
  if (!role) throw new Error(`${fn.node.path} has no role`);
  return policyStatementsOfRole(template, logicalIdOf(role)).filter(
    (statement) => statement.Effect === 'Allow',
  );
}

/** The actions a function's role may take on a resource, collected from all the statements naming it. */
export function actionsOnResource(template: Template, fn: ServiceFunction, logicalId: string): string[] {
  const actions = allowStatementsOf(template, fn)
    .filter((statement) => statementTargets(statement, logicalId))
    .flatMap((statement) => actionsOf(statement));
  return [...new Set(actions)];
}

/** What a function's role may do to each table, collected from all the statements of its policies. */
export function tableActionsOf(
  template: Template,
  fn: ServiceFunction,
  tables: TableMap,
): Map<TableId, string[]> {
  return new Map(
    TABLE_IDS.map((tableId) => [tableId, actionsOnResource(template, fn, logicalIdOf(tables[tableId]))]),
  );
}

/**
 * Asserts a function's actions on one table match its contract binding: none without a binding, exactly
 * GetItem and BatchGetItem for a get binding, the reads for a read binding (and no write), the reads and the
 * writes for a write binding.
 */
export function expectContractAccess(actions: readonly string[], access: TableAccess | undefined): void {
  if (access === undefined) {
    expect(actions).toEqual([]);
    return;
  }
  if (access === 'get') {
    expect([...actions].sort()).toEqual([...GET_ACTIONS].sort());
    return;
  }
  expect(actions).toEqual(expect.arrayContaining(READ_ACTIONS));
  if (access === 'write') {
    expect(actions).toEqual(expect.arrayContaining(WRITE_ACTIONS));
  } else {
    expect(actions.filter((action) => WRITE_ACTIONS.includes(action))).toEqual([]);
  }
}

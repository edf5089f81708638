import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { AUTHORIZER, CLOCK_TICK, REST_ROUTES } from '#contracts/routes';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { TABLE_IDS, TABLES, type TableBinding } from '#contracts/tables';
import { HEARTBEAT, WS_ROUTES } from '#contracts/websocket';
import { DataTables } from '#lib/constructs/data-tables';
import { ServiceFunction } from '#lib/constructs/service-function';
import { PROJECT_ROOT } from '#lib/project-root';
import { expectContractAccess, READ_ACTIONS, tableActionsOf, WRITE_ACTIONS } from './support/grants.ts';
import { synthServiceStack, testApp } from './support/service-stack.ts';
import {
  actionsOf,
  logicalIdOf,
  policyStatementsOfRole,
  resourceOf,
  resourcesOfType,
  templateOfResource,
} from './support/template.ts';

const { stack, template } = synthServiceStack();
const tableIdOf = Object.fromEntries(TABLE_IDS.map((id) => [id, logicalIdOf(stack.data.tables[id])]));

/**
 * The functions and the tables their contracts bind: one per REST route, the authorizer, one per WebSocket
 * route, the clock tick and the heartbeat. The ingest function's bindings are asserted in
 * trade-ingestion.test.ts, the fan-out's in event-fan-out.test.ts (it also gets its source tables' names).
 */
const BOUND_FUNCTIONS = [
  ...REST_ROUTES.map((route) => ({
    name: route.id,
    tables: route.tables as readonly TableBinding[],
    construct: stack.restApi.routeFunctions[route.id],
  })),
  {
    name: 'authorizer',
    tables: AUTHORIZER.tables as readonly TableBinding[],
    construct: stack.restApi.authorizerFunction,
  },
  ...WS_ROUTES.map((route) => ({
    name: `WebSocket ${route.routeKey}`,
    tables: route.tables as readonly TableBinding[],
    construct: stack.webSocketApi.routeFunctions[route.id],
  })),
  {
    name: 'clock tick',
    tables: CLOCK_TICK.tables as readonly TableBinding[],
    construct: stack.clockTick.tickFunction,
  },
  {
    name: 'heartbeat',
    tables: HEARTBEAT.tables as readonly TableBinding[],
    construct: stack.heartbeat.heartbeatFunction,
  },
];

/** Functions sized differently from the ServiceFunction defaults (512 MB, 10 s), by logical id. */
const SIZED_FUNCTIONS = new Map([
  [logicalIdOf(stack.ingestion.ingestFunction.lambda), { MemorySize: 1024, Timeout: 60 }],
  [logicalIdOf(stack.clockTick.tickFunction.lambda), { MemorySize: 1024, Timeout: 50 }],
  [logicalIdOf(stack.fanOut.fanOutFunction.lambda), { MemorySize: 512, Timeout: 30 }],
  [logicalIdOf(stack.heartbeat.heartbeatFunction.lambda), { MemorySize: 512, Timeout: 60 }],
]);

describe('ServiceFunction defaults', () => {
  const functions = resourcesOfType(template, 'AWS::Lambda::Function');

  it('creates one function per route (REST and WebSocket), the authorizer, the schedules, the ingest and the fan-out', () => {
    expect(functions).toHaveLength(BOUND_FUNCTIONS.length + 2);
  });

  it.each(functions)(
    '%s runs Node.js 24 on ARM64, traced, with source maps and Powertools settings',
    (id) => {
      templateOfResource(template, id).hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        ...(SIZED_FUNCTIONS.get(id) ?? { MemorySize: 512, Timeout: 10 }),
        TracingConfig: { Mode: 'Active' },
        Environment: {
          Variables: Match.objectLike({
            NODE_OPTIONS: '--enable-source-maps',
            POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
            POWERTOOLS_LOG_LEVEL: 'INFO',
            [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
          }),
        },
      });
    },
  );

  it("the tests run on the functions' Node major or newer (npm test sees to it: scripts/node24.mjs)", () => {
    const runtimes = new Set(functions.map(([, resource]) => resource.Properties.Runtime as string));
    expect(runtimes.size).toBe(1);
    const lambdaMajor = Number(/^nodejs(\d+)\.x$/.exec([...runtimes][0] ?? '')?.[1]);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(lambdaMajor);
  });

  it.each(functions)('%s logs to its own log group, kept for a month', (id) => {
    const logGroupId = resourceOf(template, id).Properties.LoggingConfig?.LogGroup?.Ref;
    expect(logGroupId).toBeTypeOf('string');
    templateOfResource(template, logGroupId).hasResourceProperties('AWS::Logs::LogGroup', {
      RetentionInDays: 30,
    });
  });

  it.each(functions)('%s has a role without managed policies, writing only its own log group', (id) => {
    const fn = resourceOf(template, id);
    const roleId = fn.Properties.Role['Fn::GetAtt'][0];
    templateOfResource(template, roleId).hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: Match.absent(),
    });
    const logStatements = policyStatementsOfRole(template, roleId).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('logs:')),
    );
    expect(logStatements).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] },
      },
    ]);
  });

  it('resolves handler entries against the project root', () => {
    expect(existsSync(join(PROJECT_ROOT, 'package.json'))).toBe(true);
    expect(existsSync(join(PROJECT_ROOT, 'functions', 'contracts', 'routes.ts'))).toBe(true);
  });
});

describe.each(BOUND_FUNCTIONS)('$name table bindings', ({ tables, construct }) => {
  const functionId = logicalIdOf(construct.lambda);
  const bound = new Map(tables.map((binding) => [binding.table, binding.access]));

  it('gets exactly the environment variables of its tables, naming those tables', () => {
    const variables: Record<string, unknown> = resourceOf(template, functionId).Properties.Environment
      .Variables;
    const tableVariables = Object.fromEntries(
      TABLE_IDS.filter((tableId) => TABLES[tableId].envVar in variables).map((tableId) => [
        TABLES[tableId].envVar,
        variables[TABLES[tableId].envVar],
      ]),
    );
    expect(tableVariables).toEqual(
      Object.fromEntries(tables.map(({ table }) => [TABLES[table].envVar, { Ref: tableIdOf[table] }])),
    );
  });

  it.each(TABLE_IDS)('has the contract’s access to %s and nothing more', (tableId) => {
    const actions = tableActionsOf(template, construct, stack.data.tables).get(tableId) ?? [];
    expectContractAccess(actions, bound.get(tableId));
  });
});

describe('ServiceFunction.bindTable', () => {
  const standalone = (bindings: readonly TableBinding[]) => {
    const testStack = new Stack(testApp(), 'BindTableTest');
    const { tables } = new DataTables(testStack, 'Tables');
    const fn = new ServiceFunction(testStack, 'Fn', {
      entry: 'test/infra/fixtures/noop-handler.ts',
      tables,
      bindings,
    });
    return { fn, template: Template.fromStack(testStack), tables };
  };

  it('grants writes for a write binding', () => {
    const { fn, template, tables } = standalone([{ table: 'accounts', access: 'write' }]);
    templateOfResource(template, logicalIdOf(fn.lambda)).hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ [TABLES.accounts.envVar]: { Ref: logicalIdOf(tables.accounts) } }),
      },
    });
    expect(tableActionsOf(template, fn, tables).get('accounts')).toEqual(
      expect.arrayContaining([...READ_ACTIONS, ...WRITE_ACTIONS]),
    );
  });

  it('grants only GetItem and BatchGetItem for a get binding: no Query, no Scan, no write', () => {
    const { fn, template, tables } = standalone([{ table: 'apiKeys', access: 'get' }]);
    expect(tableActionsOf(template, fn, tables).get('apiKeys')?.sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
    ]);
  });

  it('refuses to bind the same table twice', () => {
    expect(() =>
      standalone([
        { table: 'accounts', access: 'read' },
        { table: 'accounts', access: 'write' },
      ]),
    ).toThrow(/binds table accounts twice/);
  });
});

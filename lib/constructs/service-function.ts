import { join, resolve } from 'node:path';
import { CfnResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, type IPrincipal, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { SERVICE_NAME } from '#contracts/runtime-settings';
import { TABLES, type TableBinding, type TableDefinition, type TableId } from '#contracts/tables';
import { LAMBDA_BUNDLING } from '#lib/bundling';
import { PROJECT_ROOT } from '#lib/project-root';

export type PowertoolsLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

/** Every table of the stack, by contract id; a function is bound to some of them. */
export type TableConstructs = Readonly<Record<TableId, ITable>>;

export interface ServiceFunctionProps {
  /** The Lambda entry relative to the project root, exactly as the contracts write it. */
  readonly entry: string;
  /** The stack's tables: `bindTable` looks a binding's table up here. */
  readonly tables: TableConstructs;
  /** The tables the function reads or writes (the contract's `tables`); bound at creation. */
  readonly bindings?: readonly TableBinding[];
  readonly description?: string;
  /** Extra environment; the table variables come from the bindings, never from here. */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default 512 (MB; on ARM a good price/latency point for SDK-heavy handlers) */
  readonly memorySize?: number;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  /** @default 'INFO' */
  readonly logLevel?: PowertoolsLogLevel;
}

/** A `get` binding: items by key, nothing else (functions/contracts/tables.ts). */
export const GET_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] as const;

/**
 * What a binding gives a resource to: a name in the environment and a grant to the principal, in one call so
 * the two cannot drift. A ServiceFunction is one (its function's environment and role); so is a container
 * service (its container's environment and task role, lib/constructs/ingest-consumer.ts). cdk-nag
 * acknowledgements of a binding's grants are made on the target, which holds the principal's policy.
 */
export interface BindingTarget extends IGrantable, IConstruct {
  addEnvironment(name: string, value: string): void;
}

/**
 * Gives a target a table: its name in the contract's environment variable and the matching grant. `read`
 * grants reads only (no PutItem, UpdateItem, DeleteItem); `get` GetItem and BatchGetItem only.
 */
export function bindTable(
  target: BindingTarget,
  tables: TableConstructs,
  { table, access }: TableBinding,
): void {
  const resource = tables[table];
  const definition: TableDefinition = TABLES[table];
  target.addEnvironment(definition.envVar, resource.tableName);
  if (access === 'write') {
    resource.grantReadWriteData(target);
  } else if (access === 'read') {
    resource.grantReadData(target);
  } else {
    resource.grant(target, ...GET_ACTIONS);
  }

  if (definition.indexes?.length) {
    Validations.of(target).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalIdOf(resource)}.Arn>/index/*]`,
      reason:
        `The ${table} table grant includes its own global secondary indexes (${table} ARN + /index/*), ` +
        'which the handler queries; the wildcard covers no other table.',
    });
  }
}

/** Acknowledged cdk-nag findings that every service function shares, with the reason for each. */
const FUNCTION_ACKNOWLEDGEMENTS = [
  {
    id: 'AwsSolutions-L1',
    reason:
      'The service pins the Node.js 24 runtime (AWS-supported LTS, the newest this CDK version knows), ' +
      'matching the esbuild target and the Node the tests run on; moving to a newer runtime when one appears ' +
      'is a deliberate, tested upgrade rather than drift.',
  },
  {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords, which do not support ' +
      'resource-level permissions, so their resource must be "*". Every other statement is scoped.',
  },
] as const;

/**
 * One Lambda function of the service: Node.js 24 on ARM64, bundled ESM, active tracing, its own log group
 * with a retention, and a role that can do nothing beyond writing that log group until tables are bound.
 *
 * A construct adds a function bound to tables like this:
 *
 *   const fanOut = new ServiceFunction(this, 'FanOut', {
 *     entry: 'functions/handlers/stream/fan-out.ts',
 *     tables: props.tables,
 *     bindings: [{ table: 'connections', access: 'write' }],
 *   });
 *   fanOut.lambda.addEventSource(...);
 */
export class ServiceFunction extends Construct implements BindingTarget {
  readonly lambda: NodejsFunction;
  readonly logGroup: LogGroup;
  private readonly tables: TableConstructs;
  private readonly boundTables = new Set<TableId>();

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.tables = props.tables;

    // An explicit log group instead of Lambda's implicit /aws/lambda/<name>: it gets a retention, is
    // removed with the stack, and needs no log-retention custom resource.
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Our own role instead of the default one with the AWSLambdaBasicExecutionRole managed policy: that
    // policy allows creating and writing any log group in the account; this role may only write its own.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}`,
    });
    this.logGroup.grantWrite(role);

    this.lambda = new NodejsFunction(this, 'Function', {
      entry: resolve(PROJECT_ROOT, props.entry),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X, // NODE_TARGET in lib/bundling.ts follows it
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      role,
      logGroup: this.logGroup,
      description: props.description,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
        [METRICS_NAMESPACE_ENV]: METRICS_NAMESPACE,
        ...props.environment,
      },
      // ESM (index.mjs), minified, source maps, the AWS SDK bundled but for the developer-only credential
      // providers: lib/bundling.ts, shared with the cold-import benchmark.
      bundling: LAMBDA_BUNDLING,
    });

    for (const acknowledgement of FUNCTION_ACKNOWLEDGEMENTS) {
      Validations.of(this).acknowledge(acknowledgement);
    }
    for (const binding of props.bindings ?? []) {
      this.bindTable(binding);
    }
  }

  /** The function's role: what bindings grant to. */
  get grantPrincipal(): IPrincipal {
    return this.lambda.grantPrincipal;
  }

  addEnvironment(name: string, value: string): void {
    this.lambda.addEnvironment(name, value);
  }

  /** Gives the function a table (the module's bindTable), once: a second binding of a table is a mistake. */
  bindTable(binding: TableBinding): void {
    if (this.boundTables.has(binding.table)) {
      throw new Error(
        `${this.node.path} binds table ${binding.table} twice; bind it once with the access it needs`,
      );
    }
    this.boundTables.add(binding.table);
    bindTable(this, this.tables, binding);
  }
}

/** The CloudFormation logical id of a construct's primary resource, as cdk-nag names it in findings. */
function logicalIdOf(construct: Construct): string {
  const resource = construct.node.defaultChild;
  if (!CfnResource.isCfnResource(resource)) {
    throw new Error(`${construct.node.path} has no CloudFormation resource`);
  }
  return Stack.of(construct).resolve(resource.logicalId);
}

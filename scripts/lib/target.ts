import { join } from 'node:path';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ApiGatewayUsagePlanRegistry } from '#adapters/api-gateway/usage-plan-registry';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { STACK_OUTPUTS, tableOutputName } from '#contracts/stack-outputs';
import { TABLE_IDS, type TableId } from '#contracts/tables';
import type { UsagePlanRegistry } from '#domain/access/ports';
import { localDocumentClient } from '../local/dynamo.ts';
import { localTableName } from '../local/tables.ts';
import { UsageError } from './cli.ts';
import { isProcessAlive, type LocalStackState, localStackStateFile } from './local-stack-state.ts';
import { DEFAULT_DATA_DIR, LOCAL_STACK_STATE_FILE } from './project.ts';

/** Where an operator command acts: the running local stack, or a deployed stack on AWS. */
export interface Target {
  readonly description: string;
  readonly documents: DynamoDBDocumentClient;
  readonly tableNames: Readonly<Record<TableId, string>>;
  /** Present on AWS only: API Gateway throttles by usage plan keys there. */
  readonly usagePlan?: UsagePlanRegistry;
}

export interface TargetOptions {
  /** A deployed stack's name: act on AWS with the default credential chain. */
  readonly stack?: string;
  readonly region?: string;
  /** The local DynamoDB endpoint; default: the running local stack's, then http://127.0.0.1:8000. */
  readonly endpoint?: string;
  readonly dataDir?: string;
}

/**
 * The running local stack's state, or undefined when none has been started on `dataDir` (or it stopped
 * cleanly, which removes the file). A file whose process is gone was left by a stack that crashed or was
 * killed: that is said plainly, rather than sending the command to ports nothing listens on.
 */
export async function runningLocalStack(
  dataDir: string = DEFAULT_DATA_DIR,
): Promise<LocalStackState | undefined> {
  const state = await localStackStateFile(dataDir);
  if (state && !isProcessAlive(state.pid)) {
    throw new UsageError(
      `the local stack that wrote ${join(dataDir, LOCAL_STACK_STATE_FILE)} (pid ${state.pid}) is not running ` +
        'any more: it did not stop cleanly. Start it again with npm start.',
    );
  }
  return state;
}

/** A deployed stack's output by name; fails naming the output when the stack lacks it. */
export async function stackOutputs(stackName: string, region?: string): Promise<(name: string) => string> {
  const cloudFormation = new CloudFormationClient({ region });
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = new Map(
    (Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]),
  );
  return (name) => {
    const value = outputs.get(name);
    if (!value)
      throw new Error(`stack ${stackName} has no output ${name}: is it deployed from this version?`);
    return value;
  };
}

async function localTarget(options: TargetOptions): Promise<Target> {
  const endpoint =
    options.endpoint ?? (await runningLocalStack(options.dataDir))?.dynamoEndpoint ?? 'http://127.0.0.1:8000';
  return {
    description: `the local stack (DynamoDB at ${endpoint})`,
    documents: localDocumentClient(endpoint),
    tableNames: Object.fromEntries(TABLE_IDS.map((id) => [id, localTableName(id)])) as Record<
      TableId,
      string
    >,
  };
}

async function awsTarget(stackName: string, region?: string): Promise<Target> {
  const output = await stackOutputs(stackName, region);
  return {
    description: `stack ${stackName} on AWS`,
    documents: documentClientFor(new DynamoDBClient({ region })),
    tableNames: Object.fromEntries(TABLE_IDS.map((id) => [id, output(tableOutputName(id))])) as Record<
      TableId,
      string
    >,
    usagePlan: new ApiGatewayUsagePlanRegistry(
      new APIGatewayClient({ region }),
      output(STACK_OUTPUTS.usagePlanId),
    ),
  };
}

export function resolveTarget(options: TargetOptions): Promise<Target> {
  return options.stack ? awsTarget(options.stack, options.region) : localTarget(options);
}

/** The command-line options every operator command shares. */
export const TARGET_ARGS = {
  stack: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

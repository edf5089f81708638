import { CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { expect } from 'vitest';
import { WS_STAGE } from '#contracts/websocket';

/** A synthesized resource as the template holds it; tests read the parts they assert on. */
export interface ResourceJson {
  readonly Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are free-form JSON.
  readonly Properties: Record<string, any>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export interface PolicyStatementJson {
  readonly Effect: 'Allow' | 'Deny';
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** The logical id of a construct's CloudFormation resource (an L2's default child, or the L1 itself). */
export function logicalIdOf(construct: IConstruct): string {
  const resource = construct instanceof CfnElement ? construct : construct.node.defaultChild;
  if (!(resource instanceof CfnElement))
    throw new Error(`${construct.node.path} has no CloudFormation element`);
  return Stack.of(construct).resolve(resource.logicalId);
}

export function resourcesOf(template: Template): Record<string, ResourceJson> {
  return template.toJSON().Resources;
}

export function resourceOf(template: Template, logicalId: string): ResourceJson {
  const resource = resourcesOf(template)[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId} in the template`);
  return resource;
}

/** A template of one resource, so `hasResourceProperties` and `Match` assert on exactly that resource. */
export function templateOfResource(template: Template, logicalId: string): Template {
  return Template.fromJSON({ Resources: { [logicalId]: resourceOf(template, logicalId) } });
}

export function resourcesOfType(template: Template, type: string): [string, ResourceJson][] {
  return Object.entries(resourcesOf(template)).filter(([, resource]) => resource.Type === type);
}

/** The logical id of the template's one resource of a type; fails the test if there are none or several. */
export function onlyResourceOfType(template: Template, type: string): string {
  const matches = resourcesOfType(template, type);
  expect(matches, `exactly one ${type}`).toHaveLength(1);
  return (matches[0] as [string, unknown])[0];
}

/** The event source mappings that invoke a function, by the function's logical id. */
export function eventSourceMappingsOf(template: Template, functionId: string): [string, ResourceJson][] {
  return resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').filter(
    ([, mapping]) => mapping.Properties.FunctionName?.Ref === functionId,
  );
}

/** `arn:…:lambda:path/2015-03-31/functions/<function ARN>/invocations` for the given function. */
export const invocationUriOf = (functionId: string) =>
  Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [functionId, 'Arn'] }])] });

/**
 * Asserts a permission (AWS::Lambda::Permission) for a service principal to invoke a function; with
 * `sourceArnParts`, only from a source ARN joined from parts that include those.
 */
export function expectInvokePermission(
  template: Template,
  functionId: string,
  principal: string,
  sourceArnParts?: unknown[],
): void {
  template.hasResourceProperties('AWS::Lambda::Permission', {
    Action: 'lambda:InvokeFunction',
    FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
    Principal: principal,
    ...(sourceArnParts ? { SourceArn: { 'Fn::Join': ['', Match.arrayWith(sourceArnParts)] } } : {}),
  });
}

/**
 * `<scheme>://<api id>.execute-api.<region>.<suffix>/live`, the WebSocket stage's URL: with https, the
 * `@connections` endpoint; with wss, where partners connect when there is no custom domain.
 */
export function webSocketStageUrlOf(scheme: 'https' | 'wss', apiId: string): unknown {
  return {
    'Fn::Join': [
      '',
      [
        `${scheme}://`,
        { Ref: apiId },
        '.execute-api.',
        { Ref: 'AWS::Region' },
        '.',
        { Ref: 'AWS::URLSuffix' },
        `/${WS_STAGE}`,
      ],
    ],
  };
}

/**
 * The full path of an API Gateway resource, following ParentId up to the API's root resource, e.g.
 * `/api/market/v1/instruments/{symbol}`.
 */
export function apiResourcePath(template: Template, resourceId: unknown): string {
  if (!isRef(resourceId)) return ''; // the root resource is referenced with Fn::GetAtt RootResourceId
  const resource = resourceOf(template, resourceId.Ref);
  return `${apiResourcePath(template, resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
}

/** Every statement of every policy attached to a role. */
export function policyStatementsOfRole(template: Template, roleLogicalId: string): PolicyStatementJson[] {
  return resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"Ref":"${roleLogicalId}"`))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}

export function actionsOf(statement: PolicyStatementJson): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** Whether a statement's resources name the given resource (by Ref or Fn::GetAtt). */
export function statementTargets(statement: PolicyStatementJson, logicalId: string): boolean {
  return JSON.stringify(statement.Resource).includes(`"${logicalId}"`);
}

function isRef(value: unknown): value is { Ref: string } {
  return typeof value === 'object' && value !== null && 'Ref' in value && typeof value.Ref === 'string';
}

import type { Template } from 'aws-cdk-lib/assertions';
import type { SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { expect } from 'vitest';
import { TASK_EGRESS_PORT } from '#lib/constructs/fargate-task';
import { logicalIdOf, type ResourceJson, resourceOf, resourcesOfType } from './template.ts';

/**
 * What lib/constructs/fargate-task.ts gives every Fargate service, asserted on one service of a synthesized
 * stack: public subnets only, a public IP, no NAT gateway, HTTPS out only and nothing in.
 */
export function expectPublicTaskNetwork(
  template: Template,
  service: ResourceJson['Properties'],
  securityGroup: SecurityGroup,
): void {
  expect(resourcesOfType(template, 'AWS::EC2::NatGateway')).toEqual([]);
  const subnets = resourcesOfType(template, 'AWS::EC2::Subnet');
  expect(subnets.length).toBeGreaterThan(0);
  for (const [, subnet] of subnets) expect(subnet.Properties.MapPublicIpOnLaunch).toBe(true);
  expect(service.NetworkConfiguration.AwsvpcConfiguration).toMatchObject({
    AssignPublicIp: 'ENABLED',
    SecurityGroups: [{ 'Fn::GetAtt': [logicalIdOf(securityGroup), 'GroupId'] }],
  });
  const group = resourceOf(template, logicalIdOf(securityGroup)).Properties;
  expect(group.SecurityGroupIngress).toBeUndefined();
  expect(resourcesOfType(template, 'AWS::EC2::SecurityGroupIngress')).toEqual([]);
  expect(group.SecurityGroupEgress).toEqual([
    expect.objectContaining({
      CidrIp: '0.0.0.0/0',
      IpProtocol: 'tcp',
      FromPort: TASK_EGRESS_PORT,
      ToPort: TASK_EGRESS_PORT,
    }),
  ]);
}

/** A service's container logging to its own log group, kept 30 days, never blocking the process. */
export function expectNonBlockingLogs(
  template: Template,
  container: { LogConfiguration?: unknown },
  logGroup: LogGroup,
  streamPrefix: string,
): void {
  expect(resourceOf(template, logicalIdOf(logGroup)).Properties.RetentionInDays).toBe(30);
  expect(container.LogConfiguration).toMatchObject({
    LogDriver: 'awslogs',
    Options: {
      'awslogs-group': { Ref: logicalIdOf(logGroup) },
      'awslogs-stream-prefix': streamPrefix,
      mode: 'non-blocking',
    },
  });
}

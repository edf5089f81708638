import { describe, expect, it } from 'vitest';
import { TABLE_IDS } from '#contracts/tables';
import { SESSION_CAPACITY, SESSION_CAPACITY_CONTEXT } from '../../lib/constructs/session-capacity.ts';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf } from './support/template.ts';

/**
 * Provisioned capacity scheduled for the session (docs/adr/0021-cost-levers.md, lever 3): on by default for the
 * tables the ingest writes on every batch, off with `-c sessionCapacity=false`.
 */
const scheduledTables = Object.keys(SESSION_CAPACITY) as (keyof typeof SESSION_CAPACITY)[];

describe('session capacity, with -c sessionCapacity=false', () => {
  const { template } = synthServiceStack({ [SESSION_CAPACITY_CONTEXT]: 'false' });

  it('leaves every table on demand and adds no scaling', () => {
    for (const table of Object.values(template.findResources('AWS::DynamoDB::Table')))
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
  });
});

describe('session capacity, by default', () => {
  const { stack, template } = synthServiceStack();
  const tables = template.findResources('AWS::DynamoDB::Table');
  const targets = Object.values(template.findResources('AWS::ApplicationAutoScaling::ScalableTarget'));
  const targetOf = (tableId: string, dimension: string) =>
    targets.find(
      (target) =>
        target.Properties.ScalableDimension === dimension &&
        JSON.stringify(target.Properties.ResourceId).includes(
          logicalIdOf(stack.data.tables[tableId as 'ledgers']),
        ),
    );

  it('provisions the ledgers, states and trade log tables and leaves the others on demand', () => {
    for (const tableId of TABLE_IDS) {
      const properties = tables[logicalIdOf(stack.data.tables[tableId])]?.Properties;
      // CloudFormation's default billing mode is provisioned: CDK leaves it out and sets the throughput.
      const mode = properties?.BillingMode ?? (properties?.ProvisionedThroughput ? 'PROVISIONED' : undefined);
      expect([tableId, mode]).toEqual([
        tableId,
        (scheduledTables as string[]).includes(tableId) ? 'PROVISIONED' : 'PAY_PER_REQUEST',
      ]);
    }
  });

  it.each(
    scheduledTables.flatMap((tableId) => [
      [tableId, 'writes', 'dynamodb:table:WriteCapacityUnits'] as const,
      [tableId, 'reads', 'dynamodb:table:ReadCapacityUnits'] as const,
    ]),
  )(
    '%s: raises its %s to the open’s rate at 09:15 New York on weekdays, settles them at 10:15, lowers them at 16:15',
    (tableId, kind, dimension) => {
      const capacity = SESSION_CAPACITY[tableId][kind];
      const target = targetOf(tableId, dimension);
      expect(target?.Properties.MaxCapacity).toBe(capacity.max);
      expect(target?.Properties.MinCapacity).toBe(capacity.offSession);
      const actions = target?.Properties.ScheduledActions as {
        Schedule: string;
        Timezone: string;
        ScalableTargetAction: { MinCapacity: number };
      }[];
      expect(actions.map(({ Schedule, Timezone }) => [Schedule, Timezone])).toEqual([
        ['cron(15 9 ? * MON-FRI *)', 'America/New_York'],
        ['cron(15 10 ? * MON-FRI *)', 'America/New_York'],
        ['cron(15 16 ? * MON-FRI *)', 'America/New_York'],
      ]);
      const floors = actions.map(({ ScalableTargetAction }) => ScalableTargetAction.MinCapacity);
      expect(floors).toEqual([capacity.open, capacity.session, capacity.offSession]);
      expect(floors[1]).toBeLessThan(floors[0] ?? 0);
      expect(floors[2]).toBeLessThan(floors[1] ?? 0);
    },
  );

  it('starts each table at its off-session floors', () => {
    for (const tableId of scheduledTables) {
      const throughput = tables[logicalIdOf(stack.data.tables[tableId])]?.Properties.ProvisionedThroughput;
      expect(throughput).toEqual({
        ReadCapacityUnits: SESSION_CAPACITY[tableId].reads.offSession,
        WriteCapacityUnits: SESSION_CAPACITY[tableId].writes.offSession,
      });
    }
  });

  it('tracks 70% utilization on every scaled dimension', () => {
    const policies = Object.values(template.findResources('AWS::ApplicationAutoScaling::ScalingPolicy'));
    expect(policies).toHaveLength(scheduledTables.length * 2);
    for (const policy of policies)
      expect(policy.Properties.TargetTrackingScalingPolicyConfiguration.TargetValue).toBe(70);
  });
});

import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { STACK_OUTPUTS, tableOutputName } from '#contracts/stack-outputs';
import { TABLE_IDS } from '#contracts/tables';
import { ClockTick } from './constructs/clock-tick.ts';
import { DataTables } from './constructs/data-tables.ts';
import { PartnerRestApi } from './constructs/rest-api.ts';
import { TradeIngestion } from './constructs/trade-ingestion.ts';

/**
 * The Market Data Alerts service. Environment-agnostic (no account or region), so it synthesizes offline and
 * deploys to whichever account and region the CLI's credentials name, LocalStack included.
 *
 * Stateful resources (DataTables) are created first and passed by props to the stateless constructs;
 * the WebSocket API and fan-out constructs join the same way.
 */
export class MarketDataStack extends Stack {
  readonly data: DataTables;
  readonly restApi: PartnerRestApi;
  readonly ingestion: TradeIngestion;
  readonly clockTick: ClockTick;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, {
      description: 'Market Data Alerts Partner Service: REST market data and Strat analytics',
      ...props,
    });

    this.data = new DataTables(this, 'Tables');
    this.restApi = new PartnerRestApi(this, 'RestApi', { tables: this.data.tables });
    this.ingestion = new TradeIngestion(this, 'Ingestion', { tables: this.data.tables });
    this.clockTick = new ClockTick(this, 'ClockTick', { tables: this.data.tables });

    // Top-level outputs, so their keys are exactly the names in the stack-outputs contract that the key
    // CLI, the seed command and `npm run replay -- --stack` read (CDK adds no path hash to a stack's direct
    // children).
    new CfnOutput(this, STACK_OUTPUTS.restApiUrl, { value: this.restApi.baseUrl });
    new CfnOutput(this, STACK_OUTPUTS.restApiId, { value: this.restApi.api.restApiId });
    new CfnOutput(this, STACK_OUTPUTS.usagePlanId, { value: this.restApi.usagePlan.usagePlanId });
    new CfnOutput(this, STACK_OUTPUTS.tradeStreamName, { value: this.ingestion.stream.streamName });
    for (const tableId of TABLE_IDS) {
      new CfnOutput(this, tableOutputName(tableId), { value: this.data.tables[tableId].tableName });
    }
  }
}

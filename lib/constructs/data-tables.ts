import { RemovalPolicy } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { type KeyAttribute, TABLE_IDS, TABLES, type TableDefinition, type TableId } from '#contracts/tables';
import {
  initialCapacity,
  SESSION_CAPACITY,
  type SessionCapacityTable,
  scheduleSessionCapacity,
} from './session-capacity.ts';

export type TableMap = Readonly<Record<TableId, Table>>;

const ATTRIBUTE_TYPES = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
} as const satisfies Record<KeyAttribute['type'], AttributeType>;

const toAttribute = (key: KeyAttribute): Attribute => ({ name: key.name, type: ATTRIBUTE_TYPES[key.type] });

/**
 * The service's stateful core: one DynamoDB table per entry of the TABLES contract. Stateless constructs
 * receive `tables` by props and bind what they need, so a table is never created twice or by accident.
 * A new entry in TABLES becomes a table here with no change to this file.
 */
export class DataTables extends Construct {
  readonly tables: TableMap;

  /**
   * `sessionCapacity`: the tables the ingest writes on every batch get provisioned capacity scheduled for the
   * session (session-capacity.ts); the others stay on demand.
   */
  constructor(scope: Construct, id: string, props: { readonly sessionCapacity?: boolean } = {}) {
    super(scope, id);
    this.tables = Object.fromEntries(
      TABLE_IDS.map((tableId) => [
        tableId,
        this.createTable(tableId, TABLES[tableId], props.sessionCapacity === true),
      ]),
    ) as Record<TableId, Table>;
  }

  private createTable(tableId: TableId, definition: TableDefinition, sessionCapacity: boolean): Table {
    const scheduled = sessionCapacity && tableId in SESSION_CAPACITY;
    const table = new Table(this, tableId, {
      partitionKey: toAttribute(definition.partitionKey),
      sortKey: definition.sortKey && toAttribute(definition.sortKey),
      ...(scheduled
        ? { billingMode: BillingMode.PROVISIONED, ...initialCapacity(tableId as SessionCapacityTable) }
        : { billingMode: BillingMode.PAY_PER_REQUEST }),
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      stream: definition.stream && StreamViewType[definition.stream],
      timeToLiveAttribute: definition.timeToLiveAttribute,
      // Partner accounts, keys and market history outlive any one deployment: deleting the stack (or
      // replacing a table by mistake) must leave the data in place.
      removalPolicy: RemovalPolicy.RETAIN,
      // And no API call, console click or CloudFormation update deletes a table while this is on: turning it
      // off is a deliberate change of its own.
      deletionProtection: true,
    });
    for (const index of definition.indexes ?? []) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: toAttribute(index.partitionKey),
        sortKey: index.sortKey && toAttribute(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
    if (scheduled) scheduleSessionCapacity(table, tableId as SessionCapacityTable);
    return table;
  }
}

import { documentClient } from '../dynamo.ts';
import { tableName } from '../environment.ts';
import type { TableContext } from './context.ts';

/**
 * A Lambda instance's tables: its DynamoDB client and the table names the CDK sets in its environment
 * (`bindTable`). A name that is not set fails the first use of its port, naming the variable.
 */
export const AWS_TABLES: TableContext = { documents: documentClient, tableName };

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What a client made by `stoppingClient` throws once it has stopped: a writer dead mid-way. */
export class StoppedDead extends Error {}

/**
 * `client` as a writer that counts the items its write calls write, names the commands it sends in order,
 * and stops dead at its `crashAt`-th call (0-based): that call and every later one fail with StoppedDead, as
 * when the writer's process is killed.
 */
export function stoppingClient(client: DynamoDBDocumentClient, crashAt?: number) {
  const counts = { writtenItems: 0, calls: 0 };
  const commands: string[] = [];
  const counting = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        if (crashAt !== undefined && counts.calls >= crashAt)
          return Promise.reject(new StoppedDead('stopped'));
        counts.calls += 1;
        const name = command.constructor.name;
        commands.push(name);
        if (name === 'PutCommand' || name === 'UpdateCommand') counts.writtenItems += 1;
        if (name === 'BatchWriteCommand') {
          const requests = command.input.RequestItems as Record<string, unknown[]>;
          for (const list of Object.values(requests)) counts.writtenItems += list.length;
        }
        return target.send(command as Parameters<typeof client.send>[0]);
      };
    },
  });
  return { client: counting, counts, commands };
}

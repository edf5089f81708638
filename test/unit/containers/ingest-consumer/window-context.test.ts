import { describe, expect, it } from 'vitest';
import { windowContext } from '#containers/ingest-consumer/window-context';
import { instrumented } from '#runtime/lambda-handler';

describe('windowContext', () => {
  it('gives a window no deadline: the handlers’ middleware lets one that takes a while finish', async () => {
    const slowWindow = instrumented(async (_event: unknown) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return 'committed';
    });

    await expect(slowWindow({}, windowContext('task/1'))).resolves.toBe('committed');
  });

  it('names the consumer and its holder in the log keys', () => {
    expect(windowContext('task/1')).toMatchObject({
      functionName: 'ingest-consumer',
      awsRequestId: 'task/1',
    });
  });
});

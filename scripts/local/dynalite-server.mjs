// The local DynamoDB (dynalite) in a process of its own, so it has a core to itself: started by
// dynamo.ts with `fork`, it reports its port, answers request-count queries and exits with its parent.
import dynalite from 'dynalite';

const [port, path] = [Number(process.argv[2] ?? 0), process.argv[3] || undefined];
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
let requests = 0;
server.on('request', () => {
  requests++;
});
server.once('error', (error) => {
  process.send?.({ type: 'error', message: error.message });
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  process.send?.({ type: 'listening', port: server.address().port });
});
process.on('message', (message) => {
  if (message?.type === 'count') process.send?.({ type: 'count', requests });
  if (message?.type === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

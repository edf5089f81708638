// The local DynamoDB (dynalite) in a process of its own, so it has a core to itself: started by
// dynamo.ts with `fork`, it reports its port, answers request-count queries and exits with its parent.
//
// dynalite has no Streams (docs/architecture.md#local-stack-the-same-code-on-embedded-parts): for the tables
// named in the third argument (a JSON array), every committed write is reported to the parent as
// `{ type: 'change', table, oldImage, newImage }` before dynalite answers the request, so the reports of one
// key come in commit order.
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

/**
 * LevelDB on disk, as `npm start` keeps its data, with a 16 MB write buffer instead of its default 4 MB. With
 * 4 MB the session at 20x (docs/benchmarks.md#a-simulated-session-keeps-up) filled a buffer every few
 * seconds, and LevelDB's threads, flushing and compacting them, took 320-370 µs of CPU per symbol-batch, on
 * the two cores the stack needs too; with 16 MB 135 µs (32 MB: 114, 64 MB: 95, for up to twice the buffer
 * in memory). Every write is in LevelDB's log before it is answered, whatever the buffer, so a stop loses
 * nothing; a start replays up to a buffer's worth of log. In memory (the tests) the options do nothing.
 */
const LEVELDB_OPTIONS = { writeBufferSize: 16 * 1024 * 1024 };

const [port, path] = [Number(process.argv[2] ?? 0), process.argv[3] || undefined];
const capturedTables = new Set(JSON.parse(process.argv[4] || '[]'));
const require = createRequire(import.meta.url);
// Before dynalite is loaded: it takes LevelDB's class when it loads.
openLevelDbWith(LEVELDB_OPTIONS);
const dynalite = require('dynalite');
const dynaliteDb = require('dynalite/db');
onEveryStore(dynaliteDb, (store) => tune(store.db));
if (capturedTables.size > 0) onEveryStore(dynaliteDb, (store) => capturing(store, capturedTables));

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
// A terminal's Ctrl-C signals the whole process group, this process too. The parent stops it last, once the
// streams have drained into it ('stop' above), and it exits with its parent in any case ('disconnect'):
// ending on the signal itself would leave the parent's drain waiting on a database that is gone.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

/** dynalite opens LevelDB with no options of its own: the `level` package it loads opens with these. */
function openLevelDbWith(options) {
  const level = createRequire(require.resolve('dynalite'))('level');
  const { Level } = level;
  level.Level = class LevelWithOptions extends Level {
    constructor(location, ownOptions) {
      super(location, { ...ownOptions, ...options });
    }
  };
}

/**
 * Calls `apply` on each store dynalite makes, and again each time it remakes one: a closed server that
 * listens again recreates its store, copying a fresh store's fields (its own `recreate` among them) over
 * the old, so every change, and this hook, must be put on again.
 */
function onEveryStore(db, apply) {
  const applyAndKeep = (store) => {
    apply(store);
    const recreate = store.recreate;
    store.recreate = function recreateAndApply(...args) {
      recreate.apply(this, args);
      applyAndKeep(this);
    };
  };
  const create = db.create;
  db.create = function createAndApply(...args) {
    const store = create.apply(this, args);
    applyAndKeep(store);
    return store;
  };
}

function tune(levelDb) {
  closingStreams(levelDb);
  // In memory (the tests, the benchmarks' stacks) a read is a lookup in a tree, with no thread pool to skip.
  if (path) readingAtOnce(levelDb);
}

/**
 * dynalite reads a Query or Scan through a stream over a level iterator, and never closes the iterator when
 * the stream ends (and closes it on an early stop through `return`, which level iterators lack). An open
 * iterator pins its snapshot: in memory the item tree as it was, on disk LevelDB's memtables and files as they
 * were. Every Query thus kept a version of the data alive, and the process grew with every write after it (to
 * over 2 GB within minutes of a first start, docs/benchmarks.md#local-stack-memory). These streams close their
 * iterator at the end and on destroy.
 */
function closingStreams(levelDb) {
  for (const [name, source] of [
    ['createValueStream', 'values'],
    ['createKeyStream', 'keys'],
  ]) {
    levelDb[name] = (options) => {
      const iterator = levelDb[source](options);
      let closing;
      const close = () => {
        closing ??= iterator.close().catch(() => undefined);
        return closing;
      };
      return new Readable({
        objectMode: true,
        read() {
          iterator.next().then(
            (value) => {
              if (value === undefined) close().then(() => this.push(null));
              else this.push(value);
            },
            (error) => this.destroy(error),
          );
        },
        destroy(error, callback) {
          close().then(() => callback(error));
        },
      });
    };
  }
}

/**
 * dynalite reads every item, and a table's definition on every request, with level's `get`. On disk that is
 * a task for libuv's thread pool with a LevelDB snapshot of its own, a promise and a timer turn before the
 * answer, for a read that LevelDB serves in microseconds from its memtable or block cache. In the 20x
 * session dynalite's one thread spent about a fifth of its time in those reads. Once the database is open,
 * `getSync` reads in the same thread and sees what the snapshot would have: every write committed before
 * the read. The callback still comes on a later turn, as dynalite expects. While LevelDB is still opening
 * (replaying its log after a start) or once it is closing, reads take dynalite's own path, which waits for
 * the open or reports the database closed.
 */
function readingAtOnce(levelDb) {
  const readLater = levelDb.get;
  levelDb.get = (key, callback) => {
    // dynalite always passes a callback; a caller wanting a promise gets dynalite's own path.
    if (levelDb.status !== 'open' || typeof callback !== 'function') return readLater(key, callback);
    let value;
    try {
      value = levelDb.getSync(key);
    } catch (error) {
      setImmediate(callback, error);
      return;
    }
    setImmediate(callback, null, value);
  };
}

/**
 * Makes the item store of a captured table report its writes. PutItem, UpdateItem, DeleteItem and
 * BatchWriteItem all write an item with the store's `put` or `del`, inside the item's lock and after their
 * own read, so the old image read here is the one they replaced. Deleting a table empties its store through
 * another path: like DynamoDB, that writes no stream records.
 */
function capturing(store, tables) {
  const reporting = new WeakMap();
  const getItemDb = store.getItemDb;
  store.getItemDb = (name) => {
    const itemDb = getItemDb(name);
    if (!tables.has(name)) return itemDb;
    // One wrapper per item store: a recreated table gets a new store, and so a new wrapper.
    if (!reporting.has(itemDb)) reporting.set(itemDb, reportingWrites(itemDb, name));
    return reporting.get(itemDb);
  };
}

/** The item store with `put` and `del` that report; everything else (get, batch, streams, lock) is its own. */
function reportingWrites(itemDb, table) {
  const wrapper = Object.create(itemDb);
  wrapper.put = (key, item, callback) => {
    if (typeof callback !== 'function') return itemDb.put(key, item, callback);
    readOld(itemDb, key, callback, (oldImage) => {
      itemDb.put(key, item, (error, ...rest) => {
        if (error) return callback(error, ...rest);
        report(table, oldImage, item, () => callback(error, ...rest));
      });
    });
  };
  wrapper.del = (key, callback) => {
    if (typeof callback !== 'function') return itemDb.del(key, callback);
    readOld(itemDb, key, callback, (oldImage) => {
      itemDb.del(key, (error, ...rest) => {
        if (error) return callback(error, ...rest);
        report(table, oldImage, undefined, () => callback(error, ...rest));
      });
    });
  };
  return wrapper;
}

function readOld(itemDb, key, callback, then) {
  itemDb.get(key, (error, oldImage) => {
    if (error && error.name !== 'NotFoundError') return callback(error);
    then(error ? undefined : (oldImage ?? undefined));
  });
}

/** Changes sent to the parent and not yet written to the channel; beyond the bound, writes wait for them. */
const MAX_CHANGES_IN_FLIGHT = 500;
let changesInFlight = 0;
const waitingWrites = [];

/**
 * Sends a change, then lets its write answer: at once while fewer than MAX_CHANGES_IN_FLIGHT changes wait to
 * reach the parent, else once they have. This is the back-pressure that bounds this process's memory: a
 * parent slower than the writes (its fan-out behind) slows the writes down instead of letting unsent
 * changes pile up here. `process.send` serializes at once, so later changes to the item cannot leak in.
 * Like DynamoDB Streams, a write that changes nothing (deleting a missing item, putting an identical one) is
 * not reported.
 */
function report(table, oldImage, newImage, done) {
  if ((!oldImage && !newImage) || (oldImage && newImage && canonical(oldImage) === canonical(newImage))) {
    return done();
  }
  if (!process.send) return done();
  changesInFlight++;
  process.send({ type: 'change', table, oldImage, newImage }, () => {
    changesInFlight--;
    while (changesInFlight < MAX_CHANGES_IN_FLIGHT && waitingWrites.length > 0) waitingWrites.shift()();
  });
  if (changesInFlight < MAX_CHANGES_IN_FLIGHT) done();
  else waitingWrites.push(done);
}

/** JSON with every object's keys sorted, so that equal items compare equal whatever their key order. */
function canonical(value) {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

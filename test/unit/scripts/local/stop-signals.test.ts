import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { EXIT_AT_ONCE, onStopSignals } from '#scripts/local/stop-signals';

function setup() {
  const signals = new EventEmitter();
  const exits: number[] = [];
  let finish: () => void = () => undefined;
  let stops = 0;
  onStopSignals(signals, {
    stop: () => {
      stops += 1;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    },
    exit: (code) => exits.push(code),
    log: () => undefined,
  });
  return { signals, exits, finish: () => finish(), stops: () => stops };
}

describe('onStopSignals', () => {
  it('stops on the first signal and exits 0 once stopped', async () => {
    const { signals, exits, finish, stops } = setup();
    signals.emit('SIGINT');
    expect(stops()).toBe(1);
    expect(exits).toEqual([]);
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([0]);
  });

  it.each(['SIGINT', 'SIGTERM'])('exits at once on a second signal (%s) while stopping', (second) => {
    const { signals, exits, stops } = setup();
    signals.emit('SIGINT');
    signals.emit(second);
    expect(stops()).toBe(1);
    expect(exits).toEqual([EXIT_AT_ONCE]);
  });
});

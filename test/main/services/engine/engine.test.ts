// The controller without sockets: a workspace the engine cannot run is refused before any
// worker starts, and state changes come out as `state` events.
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../../shared/api/engine';
import { ForwardingEngine, stateEvent } from '../../../../main/services/engine';
import { StaticHealth, workspace } from '../../../helpers/engine';

describe('ForwardingEngine controller', () => {
  it('refuses a workspace with two listeners on one port, and starts no worker', async () => {
    const health = new StaticHealth();
    const engine = new ForwardingEngine({ health });
    const events: EngineEvent[] = [];
    engine.on('event', (e) => events.push(e));
    const r = await engine.apply(workspace({
      servers: [{ name: 'a', address: '127.0.5.201' }],
      groups: [{ name: 'g', members: [{ server: 'a', port: 1 }] }],
      services: [
        { name: 'x', address: '127.0.5.200', port: 80, group: 'g' },
        { name: 'y', address: '127.0.5.200', port: 80, group: 'g' },
      ],
    }));
    expect(r).toMatchObject({ ok: false, reason: 'service y and service x both listen on 127.0.5.200:80/tcp' });
    expect(engine.dataWorker).toBeUndefined();
    // Nothing ran before, so it is not a reload: the engine could not start.
    expect(events).toMatchObject([{ type: 'error', message: 'cannot start: service y and service x both listen on 127.0.5.200:80/tcp' }]);
    await engine.stop();
  });

  it('turns health transitions into state events of the serve contract', () => {
    const health = new StaticHealth();
    const engine = new ForwardingEngine({ health });
    const events: EngineEvent[] = [];
    engine.on('event', (e) => events.push(e));
    health.set('g:web/web1:8081', 'available');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'state', from: 'unknown', to: 'available', score: 10 });
    const e = stateEvent({ key: 'g:web/web1:8081', group: 'web', server: 'web1', address: '127.0.0.21', port: 8081, from: 'available', to: 'unavailable', score: 1, reason: 'connect ECONNREFUSED after 2 failures', at: Date.UTC(2026, 10, 29, 21) });
    expect(e).toEqual({ ts: '2026-11-29T21:00:00.000Z', type: 'state', group: 'web', server: 'web1', address: '127.0.0.21', port: 8081, from: 'available', to: 'unavailable', score: 1, reason: 'connect ECONNREFUSED after 2 failures' });
    void engine.stop();
  });
});

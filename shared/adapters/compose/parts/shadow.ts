/** Shadow mode's recorder (shared/adapters/shadow.ts): one per container, auditing in the state table. */
import { shadowRecorder } from '../../shadow';
import { part } from '../base';
import { store } from './store';

export const shadow = part('shadow', async (b) => shadowRecorder({ store: await store(b), now: () => b.clock.now(), log: b.log }));

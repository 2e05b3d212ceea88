export { DynamoStateStore, StateTable, type DynamoStateStoreDeps } from './dynamo';
export { MemoryStateStore } from './memory';
export { StateStoreInputInvalidError, offeringKey } from './semantics';

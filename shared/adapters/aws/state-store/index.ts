export { DynamoStateStore } from './dynamo';
export { MemoryStateStore } from './memory';
export { StateStoreInputInvalidError } from './semantics';

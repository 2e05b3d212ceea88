export * from './events';
export * from './ownership';
export * from './decide';
export * from './execution-name';

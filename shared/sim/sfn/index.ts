export * from './definitions';
export * from './runner';
export * from './workflow-starter';
export * from './handlers';

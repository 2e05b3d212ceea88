export * from './definitions';
export * from './retry';
export * from './local-machine';
export * from './runner';
export * from './workflow-starter';
export * from './handlers';

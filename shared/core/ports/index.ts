export type * from './clock';
export type * from './cluster-client';
export type * from './cloud-provider';
export type * from './workflow-starter';
export type * from './state-store';
export type * from './cluster-watch';
export type * from './function-invoker';
export type * from './lp-solver';
export * from './metrics';

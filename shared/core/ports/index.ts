export type * from './clock';
export type * from './cluster-client';
export type * from './cloud-provider';
export type * from './workflow-starter';
export type * from './state-store';

/** The simulator: the production functions, adapters and ASL on a simulated EKS + EC2 in virtual time (docs/simulator.md). */
export { parseScenario } from './scenario/schema';
export { resizeScenario } from './scenario/resize';
export { runScenario, type RunOptions, type SimulationRun } from './scenario/run';
export type { SimulationResult, SimulatedNode, SimulationEvent } from './scenario/result';
export { settle } from './clock';
export type { SimWorld } from './scenario/world';
export { worldForScenario } from './scenario/scenario-world';
export { startInteractive, type InteractiveSession } from './scenario/interactive';
export { invokeFunction } from './scenario/invoke';

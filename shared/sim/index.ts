/** The simulator: the production functions, adapters and ASL on a simulated EKS + EC2 in virtual time (docs/simulator.md). */
export { parseScenario, ScenarioInvalidError, type Scenario, type ScenarioEvent } from './scenario/schema';
export { runScenario, type RunOptions, type SimulationRun } from './scenario/run';
export type { SimulationResult, SimulatedNode, SimulatedDisruption, SimulationEvent, TimelinePoint, DisruptionReason } from './scenario/result';
export { VirtualClock, settle, SimulationStalledError } from './clock';
export { createWorld, SimulationBusyError, type SimWorld, type WorldOptions } from './scenario/world';
export { deployedFunctions, type DeployedFunction } from './runtime/functions';
export { startInteractive, type InteractiveOptions, type InteractiveSession } from './scenario/interactive';

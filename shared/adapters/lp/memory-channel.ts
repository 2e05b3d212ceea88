/**
 * The LP solver's native memory (its WASM linear memory and compiled code), published on this diagnostics channel
 * (`{ bytes }`) when a container loads it: the simulator charges it to the function's modelled memory, as Lambda
 * would. Its own module, so a subscriber does not load the solver.
 */
export const LP_MEMORY_CHANNEL = 'nodewright:lp-memory';

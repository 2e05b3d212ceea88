// Types for bin/young-generation.mjs (the bin's own plain-JS helpers; tests import them).
export declare const SMALL_INPUT_BYTES: number;
export declare const DEAR_PAGE_MICROS: number;
export declare function manifestFiles(args: string[]): string[];
export declare function freshPageMicros(pages?: number): number;
export declare function youngGenerationFlag(args: string[], v8Major: number, probe?: () => number): string | undefined;

// Types of scripts/plugin-bundle.cjs, for the bundle smoke test (TypeScript).
import type { BuildOptions, Plugin } from "esbuild";

export declare const nodeBuiltins: string[];
export declare const obsidianProvided: string[];
export declare function pluginOptions(options: { version: string; dev?: boolean; outfile?: string; plugins?: Plugin[] }): BuildOptions & { outfile: string };
export declare function buildChunkedPlugin(options: BuildOptions & { outfile: string }): Promise<{ bytes: number; lazyBytes: number; packedBytes: number; chunks: number }>;
export declare function buildPlugin(options: BuildOptions & { outfile: string }): Promise<unknown>;
/** The code a built main.js holds: its text with the deflated lazy chunks inflated. */
export declare function bundleCode(text: string): string;

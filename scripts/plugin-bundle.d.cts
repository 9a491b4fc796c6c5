// Types of scripts/plugin-bundle.cjs, for the bundle smoke test (TypeScript).
import type { BuildOptions, Plugin } from "esbuild";

export declare const nodeBuiltins: string[];
export declare const obsidianProvided: string[];
export declare function pluginOptions(options: { version: string; dev?: boolean; outfile?: string; plugins?: Plugin[] }): BuildOptions & { outfile: string };
export declare function buildChunkedPlugin(options: BuildOptions & { outfile: string }): Promise<{ bytes: number; lazyBytes: number; chunks: number }>;
export declare function buildPlugin(options: BuildOptions & { outfile: string }): Promise<unknown>;

// Types of scripts/plugin-build.cjs, for the bundle smoke test and the plugin bench (TypeScript).
import type { BuildOptions, Plugin } from "esbuild";

export declare const BANNER: string;
export declare const REPOSITORY: string;
export declare const obsidianProvided: string[];
export declare function pluginOptions(options: {
  version: string;
  dev?: boolean;
  outfile?: string;
  plugins?: Plugin[];
}): BuildOptions & { outfile: string };

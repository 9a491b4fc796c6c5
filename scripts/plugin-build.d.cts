// Types of scripts/plugin-build.cjs, for the bundle smoke test and the plugin bench (TypeScript).
import type { BuildOptions, Plugin } from "esbuild";

export declare function bannerFor(repository: string): string;
export declare function repositoryUrl(field: unknown): string;
export declare const obsidianProvided: string[];
export declare function pluginOptions(options: {
  version: string;
  /** The repository URL the banner names (package.json "repository"); empty until published. */
  repository?: string;
  dev?: boolean;
  outfile?: string;
  plugins?: Plugin[];
}): BuildOptions & { outfile: string };

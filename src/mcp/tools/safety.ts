/** How a tool reports the version it made before an overwrite, outside its output schema (docs/tool-contract-extensions.md). */
import {
  overwrittenSentence,
  safetySentence,
  type OverwrittenVersion,
  type SafetyVersion,
} from "../../hackmd/safety-version";

/** The sentence for the summary (leading space, or "") and the `_meta` entries of a write's safety report. */
export function safetyReport(
  version: SafetyVersion | undefined,
  overwritten: readonly OverwrittenVersion[] = [],
): { sentence: string; meta?: Record<string, unknown> } {
  const parts: string[] = [];
  const meta: Record<string, unknown> = {};
  if (version !== undefined) {
    parts.push(safetySentence(version));
    meta.safety_version = version.made ? { id: version.id, name: version.name } : null;
    if (!version.made) meta.safety_version_missing = version.why;
  }
  if (overwritten.length > 0) {
    parts.push(
      `${overwrittenSentence(overwritten)} Read it with hackmd_get_version and fold it back in with hackmd_update_note.`,
    );
    meta.overwritten_versions = overwritten;
  }
  return parts.length === 0 ? { sentence: "" } : { sentence: ` ${parts.join(" ")}`, meta };
}

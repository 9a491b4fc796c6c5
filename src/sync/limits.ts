/** Limits and defaults in their own module, so the UI can read them without loading the sync engine (docs/architecture.md §5). */
const MIB = 1_048_576;
/** Bodies and files above this need `confirm_large_file` (our policy, docs/tools.md §19.7). */
export const LARGE_BODY_BYTES = 5 * MIB;
/** Bodies and files above this are refused (`too_large`). */
export const MAX_BODY_BYTES = 50 * MIB;

/** Quiet time after a file's last modification before automatic sync pushes it (never mid-typing). */
export const DEFAULT_DEBOUNCE_MS = 20_000;

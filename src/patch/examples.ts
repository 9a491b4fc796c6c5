/**
 * The worked examples of docs/tools.md §10.5 as data. They document the patch grammar and are the
 * test table (tests/patch/examples.test.ts iterates them): change one, and both change.
 */

/** The note path every example targets, as `hackmd_get_note` reports it for note `abc`. */
export const EXAMPLE_PATCH_PATH = "notes/abc.md";

/** One documented example: applying `patch` to `body` yields `expected` or fails with a message containing `expectedError`. */
export type PatchExample = {
  name: string;
  body: string;
  patch: string;
} & ({ expected: string; expectedError?: never } | { expectedError: string; expected?: never });

const envelope = (...hunkLines: string[]): string =>
  ["*** Begin Patch", `*** Update File: ${EXAMPLE_PATCH_PATH}`, ...hunkLines, "*** End Patch"].join("\n");

const WEEK = "## Monday\n- todo\n## Tuesday\n- todo\n";
const FOOTERS = "footer\nmiddle\nfooter\n";
const TWO_HUNKS = envelope("@@", "-one", "+1", "@@", "-three", "+3");

/** §10.5 in order; each `name` starts with the example's number there. */
export const PATCH_EXAMPLES: readonly PatchExample[] = [
  { name: "1. two hunks, trailing newline kept", body: "one\ntwo\nthree\n", patch: TWO_HUNKS, expected: "1\ntwo\n3\n" },
  { name: "1. two hunks, no trailing newline", body: "one\ntwo\nthree", patch: TWO_HUNKS, expected: "1\ntwo\n3" },
  {
    name: "2. empty note takes an addition-only hunk",
    body: "",
    patch: envelope("@@", "+first", "+second"),
    expected: "first\nsecond",
  },
  {
    name: "3. anchor disambiguates repeated context",
    body: WEEK,
    patch: envelope("@@ ## Tuesday", "-- todo", "+- done"),
    expected: "## Monday\n- todo\n## Tuesday\n- done\n",
  },
  {
    name: "3. without the anchor the context is ambiguous",
    body: WEEK,
    patch: envelope("@@", "-- todo", "+- done"),
    expectedError: "context ambiguous",
  },
  {
    name: "4. anchored addition goes right under the anchor",
    body: WEEK,
    patch: envelope("@@ ## Tuesday", "+- call Bob"),
    expected: "## Monday\n- todo\n## Tuesday\n- call Bob\n- todo\n",
  },
  {
    name: "5. a bare empty line between hunk lines is blank context",
    body: "a\n\nb\n",
    patch: envelope("@@", " a", "", "-b", "+B"),
    expected: "a\n\nB\n",
  },
  {
    name: "6. End of File matches the last lines only",
    body: FOOTERS,
    patch: envelope("@@", "-footer", "+Footer", "*** End of File"),
    expected: "footer\nmiddle\nFooter\n",
  },
  {
    name: "6. without End of File the context is ambiguous",
    body: FOOTERS,
    patch: envelope("@@", "-footer", "+Footer"),
    expectedError: "context ambiguous",
  },
  {
    name: "6. addition with End of File appends a last line",
    body: FOOTERS,
    patch: envelope("@@", "+appended", "*** End of File"),
    expected: "footer\nmiddle\nfooter\nappended\n",
  },
  {
    name: "7. a line range is not an anchor",
    body: "a\nb\n",
    patch: envelope("@@ -1,2 +1,2 @@", "-a", "+x"),
    expected: "x\nb\n",
  },
  {
    name: "7. a short line range is not an anchor",
    body: "a\nb\n",
    patch: envelope("@@ -1 +1 @@", "-a", "+x"),
    expected: "x\nb\n",
  },
  {
    name: "7. a line range followed by a section heading is not an anchor",
    body: "a\nb\n",
    patch: envelope("@@ -1,2 +1,2 @@ ## Heading", "-a", "+x"),
    expected: "x\nb\n",
  },
  { name: "8. a CRLF body keeps CRLF", body: "a\r\nb\r\n", patch: envelope("@@", "-a", "+A"), expected: "A\r\nb\r\n" },
  { name: "8. removing every line leaves an empty body", body: "a\n", patch: envelope("@@", "-a"), expected: "" },
  {
    name: "9. a patch for another note names both paths",
    body: "old\n",
    patch: envelope("@@", "-old", "+new").replace(EXAMPLE_PATCH_PATH, "notes/other.md"),
    expectedError: `the patch targets "notes/other.md", but the note's path is "${EXAMPLE_PATCH_PATH}"`,
  },
  {
    name: "9. Delete File is not supported",
    body: "old\n",
    patch: `*** Begin Patch\n*** Delete File: ${EXAMPLE_PATCH_PATH}\n*** End Patch`,
    expectedError: `"*** Delete File: ${EXAMPLE_PATCH_PATH}" is an operation that is not supported here`,
  },
  {
    name: "9. an unanchored addition-only hunk cannot place lines in a non-empty note",
    body: "old\n",
    patch: envelope("@@", "+new"),
    expectedError: "added lines alone can only fill an empty note",
  },
];

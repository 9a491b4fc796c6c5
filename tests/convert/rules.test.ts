import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildConversionContext, toLocal, toRemote, type TrackedNote } from "../../src/convert";
import { COMMENTS, HEADINGS, IMAGES, NOTES, SALT, VAULT_PATHS } from "./fixtures";

/** One row of the table under `## Rules` in docs/conversion-rules.md. */
interface Row {
  id: string;
  local: string;
  remote: string;
  context: string[];
}

/** A cell's code span content (CommonMark: the backtick run and one space each side), `↵` and `\|` decoded. */
function code(cell: string): string {
  const run = /^`+/.exec(cell)?.[0] ?? "";
  if (run === "" || !cell.endsWith(run)) throw new Error(`cell is not one code span: ${cell}`);
  let inner = cell.slice(run.length, cell.length - run.length);
  if (inner.startsWith(" ") && inner.endsWith(" ") && inner.trim() !== "") inner = inner.slice(1, -1);
  return inner.replace(/↵/g, "\n");
}

function rows(): Row[] {
  const text = readFileSync(join(__dirname, "../../docs/conversion-rules.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("Rules\n"));
  if (section === undefined) throw new Error("no ## Rules section");
  const lines = section.split("\n").filter((line) => line.startsWith("|"));
  // Split on pipes that GFM does not see as escaped.
  const cells = (line: string): string[] =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/\\\|/g, "|"));
  expect(cells(lines[0] ?? "")).toEqual(["Id", "Local (vault)", "Remote (HackMD)", "Context"]);
  return lines.slice(2).map((line) => {
    const [id, local, remote, context] = cells(line) as [string, string, string, string];
    return {
      id,
      local: code(local),
      remote: code(remote),
      context: context === "—" ? [] : context.split(",").map((path) => path.trim()),
    };
  });
}

/** The test vault with only the row's notes tracked and images uploaded. */
function contextFor(row: Row, comments: Iterable<readonly [string, string]> = []) {
  const notes = new Map<string, TrackedNote>();
  const images = new Map<string, string>();
  // `note in dir/`: the converted note's own folder (relative paths resolve against it).
  let folder: string | undefined;
  for (const path of row.context) {
    const inFolder = /^note in (.*)\/$/.exec(path);
    if (inFolder) {
      folder = inFolder[1];
      continue;
    }
    const note = NOTES.get(path);
    const image = IMAGES.get(path);
    if (note !== undefined) notes.set(path, note);
    else if (image !== undefined) images.set(path, image);
    else throw new Error(`${row.id}: ${path} is not in the test vault`);
  }
  return buildConversionContext({
    notes,
    images,
    vaultPaths: VAULT_PATHS,
    comments: new Map([...COMMENTS, ...comments]),
    commentSalt: SALT,
    ...(folder === undefined ? {} : { folder }),
    headings: HEADINGS,
  });
}

describe("the conversion rules table (docs/conversion-rules.md)", () => {
  const table = rows();

  it("has unique ids and covers every family of rules", () => {
    expect(new Set(table.map((row) => row.id)).size).toBe(table.length);
    expect(new Set(table.map((row) => row.id.replace(/\d+$/, "")))).toEqual(
      new Set(["W", "I", "E", "C", "B", "M", "X", "K", "F"]),
    );
  });

  it.each(table.map((row) => [row.id, row] as const))(
    "%s: toRemote gives the remote form and toLocal gives the local form back",
    (_id, row) => {
      const remote = toRemote(row.local, contextFor(row));
      expect(remote.text).toBe(row.remote);
      expect(toLocal(row.remote, contextFor(row, remote.dependencies.comments)).text).toBe(row.local);
    },
  );

  it.each(table.filter((row) => row.context.length > 0).map((row) => [row.id, row] as const))(
    "%s: with nothing tracked or uploaded the local form still round-trips",
    (_id, row) => {
      const bare = { ...row, context: [] };
      const remote = toRemote(row.local, contextFor(bare));
      expect(toLocal(remote.text, contextFor(bare, remote.dependencies.comments)).text).toBe(row.local);
    },
  );
});

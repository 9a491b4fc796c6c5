import { startBridge, type TestBridge } from "../helpers/bridge";

/** The documented surface of docs/tools.md §9.0: name → [title, RO, D, I, OW]. */
const SURFACE: Record<string, [string, boolean, boolean, boolean, boolean]> = {
  hackmd_get_me: ["Get HackMD Profile and Teams", true, false, true, true],
  hackmd_list_notes: ["List HackMD Notes", true, false, true, true],
  hackmd_get_note: ["Get HackMD Note", true, false, true, true],
  hackmd_create_note: ["Create HackMD Note", false, false, false, true],
  hackmd_update_note: ["Update HackMD Note", false, true, false, true],
  hackmd_delete_note: ["Delete or Restore HackMD Note", false, true, true, true],
  hackmd_upload_note_image: ["Upload HackMD Note Image", false, true, false, true],
  hackmd_list_folders: ["List HackMD Folders", true, false, true, true],
  hackmd_create_folder: ["Create HackMD Folder", false, false, false, true],
  hackmd_update_folder: ["Update HackMD Folder", false, true, true, true],
  hackmd_delete_folder: ["Delete HackMD Folder", false, true, true, true],
  hackmd_pull_note: ["Pull HackMD Note", false, true, false, true],
  hackmd_push_note: ["Push HackMD Note", false, true, true, true],
  hackmd_untrack_note: ["Untrack HackMD Note", false, true, true, false],
  // Added beside the 14 (docs/tool-contract-extensions.md).
  hackmd_list_versions: ["List HackMD Note Versions", true, false, true, true],
  hackmd_get_version: ["Get HackMD Note Version", true, false, true, true],
  hackmd_create_version: ["Create HackMD Note Version", false, false, false, true],
  hackmd_list_comments: ["List HackMD Note Comments", true, false, true, true],
  hackmd_resolve_comment: ["Resolve HackMD Note Comment", false, false, true, true],
  hackmd_search_notes: ["Search HackMD Notes", true, false, true, false],
  hackmd_list_journal: ["List HackMD Sync Journal", true, false, true, false],
};

type Schema = {
  type?: unknown;
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: unknown;
};

describe("the tools/list contract", () => {
  let bridge: TestBridge;
  let tools: Array<{
    name: string;
    title?: string;
    inputSchema: Schema;
    outputSchema?: Schema;
    annotations?: Record<string, unknown>;
    description?: string;
  }>;
  beforeAll(async () => {
    bridge = await startBridge();
    tools = (await bridge.client.listTools()).tools as typeof tools;
  });
  afterAll(async () => {
    await bridge.close();
  });

  it("lists only documented tools, in the documented order, with their titles and all four annotations", () => {
    const documented = Object.keys(SURFACE);
    expect(tools.map((tool) => tool.name)).toEqual(
      documented.filter((name) => tools.some((tool) => tool.name === name)),
    );
    for (const tool of tools) {
      const [title, readOnly, destructive, idempotent, openWorld] = SURFACE[tool.name] ?? [];
      expect(tool.title).toBe(title);
      expect(tool.annotations).toMatchObject({
        readOnlyHint: readOnly,
        destructiveHint: destructive,
        idempotentHint: idempotent,
        openWorldHint: openWorld,
      });
      expect((tool.description ?? "").length).toBeGreaterThan(60);
    }
  });

  it("declares only the tools capability", () => {
    expect(Object.keys(bridge.client.getServerCapabilities() ?? {})).toEqual(["tools"]);
  });

  it("gives every tool a strict object input schema and an object output schema, advertising no alias", () => {
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.outputSchema?.type).toBe("object");
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      for (const alias of ["workspace", "note_id", "folder_ids"]) {
        if (tool.name === "hackmd_untrack_note" && alias === "note_id") continue;
        expect(properties).not.toContain(alias);
      }
      const teamPath = tool.inputSchema.properties?.team_path;
      if (teamPath) expect(teamPath.type).toEqual(["string", "null"]);
    }
    const upload = tools.find((tool) => tool.name === "hackmd_upload_note_image");
    expect(Object.keys(upload?.inputSchema.properties ?? {})).not.toContain("team_path");
  });

  it("states the documented defaults and requirements", () => {
    const byName = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
    const list = byName.get("hackmd_list_notes");
    expect(list?.properties?.source).toMatchObject({
      default: "workspace",
      enum: ["workspace", "history", "trash", "tracked"],
    });
    expect(list?.properties?.limit).toMatchObject({ default: 20, minimum: 1, maximum: 100, type: "integer" });
    expect(list?.properties?.offset).toMatchObject({ default: 0, minimum: 0 });
    expect(list?.properties).not.toHaveProperty("folder_id");
    expect(byName.get("hackmd_list_folders")?.properties?.limit).toMatchObject({
      default: 20,
      minimum: 1,
      maximum: 100,
    });
    expect(byName.get("hackmd_get_note")?.required ?? []).toEqual([]);
    expect(byName.get("hackmd_delete_note")?.required).toEqual(["note_ref"]);
    expect(byName.get("hackmd_delete_note")?.properties?.restore).toMatchObject({ default: false });
    expect(Object.keys(byName.get("hackmd_create_note")?.properties ?? {})).toEqual(
      expect.arrayContaining(["comment_permission", "suggest_edit_permission", "parent_folder_id"]),
    );
    expect(byName.get("hackmd_update_note")?.required).toEqual(["note_ref"]);
    expect(Object.keys(byName.get("hackmd_update_note")?.properties ?? {})).toEqual(
      expect.arrayContaining(["comment_permission", "suggest_edit_permission", "patch"]),
    );
    expect(byName.get("hackmd_update_folder")?.required ?? []).toEqual([]);
    expect(byName.get("hackmd_update_folder")?.properties).toHaveProperty("child_order");
  });

  it("matches the stored snapshot, so any change to the agent-facing contract is deliberate", () => {
    expect(tools).toMatchSnapshot();
  });
});

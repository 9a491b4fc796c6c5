/**
 * Mirrors in the plugin, through the real plugin, the fake obsidian module (its adapter's
 * `trashLocal` moves a file into `.trash`, as Obsidian's does) and the emulator: the command "Mirror a HackMD
 * workspace", Sync all keeping the mirror whole (asking before a note is deleted), and the
 * settings' list of mirrors.
 */
import { Notice } from "../__mocks__/obsidian";
import { mirrorSettings } from "../../src/obsidian/mirror-settings";
import { startPlugin, waitFor, type PluginHarness } from "./helpers";

/** Runs a command and waits for the notice that starts with `prefix`; returns it. */
async function runUntil(id: string, prefix: string): Promise<string> {
  const before = Notice.shown.length;
  void h.run(id);
  await waitFor(() => Notice.shown.slice(before).some((text) => text.startsWith(prefix)));
  return Notice.shown.slice(before).find((text) => text.startsWith(prefix)) ?? "";
}

let h: PluginHarness;

beforeEach(async () => {
  h = await startPlugin({ emulator: { seed: "empty" } });
});

afterEach(async () => {
  await h.close();
});

test("the command mirrors the workspace, Sync all keeps it whole and asks before deleting a note", async () => {
  const seeded = h.emu.seed({
    folders: [{ ref: "f", name: "Team plans" }],
    notes: [
      { title: "Alpha", content: "# Alpha\n", lastChangedAt: Date.now() - 120_000 },
      { title: "Beta", content: "# Beta\n", folder: "f", lastChangedAt: Date.now() - 120_000 },
      { title: "Gamma", content: "# Gamma\n", lastChangedAt: Date.now() - 120_000 },
    ],
  });
  const [alpha, beta, gamma] = seeded.noteIds;
  let offered: { teams: string[]; folder: string } | undefined;
  h.plugin.ui.chooseMirror = (dialog) => {
    offered = { teams: dialog.teams, folder: dialog.defaultFolder(null, "") };
    return Promise.resolve({ teamPath: null, folderPath: "", localDir: "Mirror" });
  };
  const shown = await runUntil("mirror-workspace", "Mirror of");
  expect(offered?.folder).toBe("HackMD/Personal");
  expect(shown).toBe("Mirror of personal in Mirror: 3 fetched.");
  expect(await h.read("Mirror/Alpha.md")).toBe("# Alpha\n");
  expect(await h.read("Mirror/Team plans/Beta.md")).toBe("# Beta\n");
  expect(await (await h.plugin.services.loadDeps()).sync.listTracked()).toHaveLength(3);

  // HackMD trashes Gamma; the vault deletes Alpha; the user declines, then a new file appears.
  h.emu.collaboratorDelete(gamma as string);
  await h.app.vault.adapter.remove("Mirror/Alpha.md");
  await h.write("Mirror/Team plans/Delta.md", "# Delta\n\nwritten in the vault\n");
  const asked: string[] = [];
  h.plugin.ui.confirm = (dialog) => {
    asked.push(dialog.title);
    return Promise.resolve(false);
  };
  const summary = await runUntil("sync-all", "Mirror of");
  expect(asked).toEqual(["Delete the note on HackMD too?"]);
  const state = h.emu.inspect();
  expect(state.notes.find((n) => n.id === alpha)?.trashedAt).toBeNull();
  expect(state.notes.find((n) => n.title === "Delta")).toMatchObject({ readPermission: "owner", trashedAt: null });
  expect(await h.app.vault.adapter.exists("Mirror/Gamma.md")).toBe(false);
  // Kept in the vault's .trash whatever the deletion setting: HackMD no longer holds the text.
  expect(await h.read(".trash/Gamma.md")).toBe("# Gamma\n");
  expect(summary).toBe("Mirror of personal in Mirror: 1 published, 1 moved to the trash, 1 untracked.");
  const tracked = await (await h.plugin.services.loadDeps()).sync.listTracked();
  expect(tracked.map((t) => t.note_id).sort()).toEqual([beta, state.notes.find((n) => n.title === "Delta")?.id].sort());

  // The settings list the mirror; its exclude patterns are saved; removing it keeps the files.
  const settings = mirrorSettings(h.plugin.actions);
  const [listed] = await settings.list();
  expect(listed).toMatchObject({ target: "personal", local_dir: "Mirror", notes: 2, exclude: [] });
  await settings.setExclude(listed?.id ?? "", "drafts/\n*.private.md\n");
  expect((await settings.list())[0]?.exclude).toEqual(["drafts/", "*.private.md"]);
  await settings.remove(listed?.id ?? "");
  expect(await settings.list()).toEqual([]);
  expect(await h.read("Mirror/Team plans/Beta.md")).toBe("# Beta\n");
});

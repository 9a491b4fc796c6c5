/** The copy a whole-file conflict choice keeps: in the vault's .trash folder, dated, never overwritten. */
import { App } from "../__mocks__/obsidian";
import { keepCopyInTrash } from "../../src/obsidian/keep-copy";

const when = new Date(2025, 5, 1, 10, 30, 5);

describe("keepCopyInTrash", () => {
  it("writes a dated copy into .trash (unindexed), numbering a second one of the same second", async () => {
    const app = new App();
    const first = await keepCopyInTrash(app as never, "Notes/plan.md", "mine\n", "mine", when);
    expect(first).toContain('"plan (my version 2025-06-01 10.30.05).md"');
    expect(first).toMatchSnapshot();
    expect(await app.vault.adapter.read(".trash/plan (my version 2025-06-01 10.30.05).md")).toBe("mine\n");
    expect(app.vault.getFileByPath(".trash/plan (my version 2025-06-01 10.30.05).md")).toBeNull();
    const second = await keepCopyInTrash(app as never, "Notes/plan.md", "theirs\n", "theirs", when);
    expect(second).toContain('"plan (HackMD version 2025-06-01 10.30.05).md"');
    const third = await keepCopyInTrash(app as never, "plan.md", "again\n", "mine", when);
    expect(third).toContain('"plan (my version 2025-06-01 10.30.05) 2.md"');
    expect(await app.vault.adapter.read(".trash/plan (my version 2025-06-01 10.30.05).md")).toBe("mine\n");
  });

  it("fails as local_io, so the caller writes nothing, when the copy cannot be written", async () => {
    const app = new App();
    jest.spyOn(app.vault.adapter, "write").mockRejectedValue(new Error("disk full"));
    await expect(keepCopyInTrash(app as never, "plan.md", "mine\n", "merged", when)).rejects.toMatchObject({
      kind: "local_io",
    });
  });
});

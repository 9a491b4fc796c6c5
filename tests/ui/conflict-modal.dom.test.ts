import { readFileSync } from "node:fs";
import { join } from "node:path";
import { App, Modal } from "../__mocks__/obsidian";
import { ConflictModal, openConflictModal } from "../../src/ui/conflict-modal";
import { buildConflictViewModel, type ConflictViewModel } from "../../src/ui/conflict-view-model";

const lines = (n: number, change: Record<number, string> = {}): string =>
  Array.from({ length: n }, (_, i) => `${change[i + 1] ?? `L${i + 1}`}\n`).join("");

/** Two conflicts (lines 4 and 16); theirs also carries markup that must stay text. */
function conflicted(): ConflictViewModel {
  return buildConflictViewModel({
    base: lines(20),
    local: lines(20, { 4: "mine 4", 16: "mine 16" }),
    remote: lines(20, { 4: "theirs <b>4</b>", 16: "theirs 16" }),
    remoteHash: `sha256:${"b".repeat(64)}`,
    localPath: "Notes/plan.md",
    noteId: "note1",
  });
}

function clean(): ConflictViewModel {
  return buildConflictViewModel({
    base: lines(10),
    local: lines(10, { 1: "mine 1" }),
    remote: lines(10, { 9: "theirs 9" }),
    remoteHash: `sha256:${"c".repeat(64)}`,
    localPath: "plan.md",
    noteId: "note1",
  });
}

function open(vm: ConflictViewModel): ConflictModal {
  const modal = new ConflictModal(new App() as never, vm);
  modal.open();
  return modal;
}

const q = (modal: ConflictModal, selector: string): HTMLElement => {
  const el = modal.contentEl.querySelector<HTMLElement>(selector);
  if (!el) throw new Error(`no ${selector}`);
  return el;
};
const action = (modal: ConflictModal, name: string): HTMLButtonElement => q(modal, `[data-action="${name}"]`) as HTMLButtonElement;
const choice = (modal: ConflictModal, hunk: number, name: string): HTMLButtonElement => q(modal, `[data-hunk="${hunk}"] [data-choice="${name}"]`) as HTMLButtonElement;

afterEach(() => {
  for (const modal of [...Modal.opened]) modal.close();
});

describe("conflict modal", () => {
  it("renders three labelled monospace blocks per conflict hunk, as text", () => {
    const modal = open(conflicted());
    const hunks = modal.contentEl.querySelectorAll(".hackmd-bridge-conflict-hunk");
    expect(hunks).toHaveLength(2);
    const first = hunks[0]!;
    const blocks = Array.from(first.querySelectorAll(".hackmd-bridge-conflict-block"));
    expect(blocks.map((block) => block.getAttribute("data-side"))).toEqual(["base", "mine", "theirs"]);
    expect(blocks.map((block) => block.querySelector(".hackmd-bridge-conflict-label")?.textContent)).toEqual(["Base (last synced)", "Mine (this file)", "Theirs (HackMD)"]);
    expect(blocks.map((block) => block.querySelector("pre")?.textContent)).toEqual(["L4", "mine 4", "theirs <b>4</b>"]);
    // Markup in a note is shown, never interpreted.
    expect(first.querySelector("b")).toBeNull();
    expect(modal.titleEl.textContent).toBe("Resolve the conflict in plan.md");
    expect(modal.modalEl.hasClass("hackmd-bridge-conflict-modal")).toBe(true);
  });

  it("collapses the settled lines between conflicts", () => {
    const modal = open(conflicted());
    expect(q(modal, ".hackmd-bridge-conflict-hidden").textContent).toBe("5 lines merged without conflict");
  });

  it("enables the merged text only when every conflict has a choice, and resolves it", async () => {
    const vm = conflicted();
    const modal = open(vm);
    const merge = action(modal, "merged");
    expect(merge.disabled).toBe(true);
    expect(q(modal, ".hackmd-bridge-conflict-preview").textContent).toContain("<<<<<<< mine");
    choice(modal, 0, "remote").click();
    expect(merge.disabled).toBe(true);
    expect(choice(modal, 0, "remote").getAttribute("aria-pressed")).toBe("true");
    expect(choice(modal, 0, "local").getAttribute("aria-pressed")).toBe("false");
    expect(q(modal, ".hackmd-bridge-conflict-progress").textContent).toBe("1 of 2 conflicts chosen.");
    choice(modal, 1, "both").click();
    expect(merge.disabled).toBe(false);
    expect(q(modal, ".hackmd-bridge-conflict-preview").textContent).toBe(vm.result(["remote", "both"]));
    merge.click();
    await expect(modal.result).resolves.toEqual({ action: "merged", text: lines(20, { 4: "theirs <b>4</b>", 16: "mine 16\ntheirs 16" }) });
    expect(Modal.opened).not.toContain(modal as unknown as Modal);
  });

  it("lets a choice be changed before confirming", async () => {
    const vm = conflicted();
    const modal = open(vm);
    choice(modal, 0, "local").click();
    choice(modal, 1, "local").click();
    choice(modal, 0, "both").click();
    action(modal, "merged").click();
    await expect(modal.result).resolves.toEqual({ action: "merged", text: vm.result(["both", "local"]) });
  });

  it("offers a clean merge directly, with no hunks to choose", async () => {
    const vm = clean();
    const modal = open(vm);
    expect(modal.contentEl.querySelectorAll(".hackmd-bridge-conflict-hunk")).toHaveLength(0);
    expect(q(modal, ".hackmd-bridge-conflict-preview").textContent).toBe(vm.clean);
    expect(action(modal, "merged").disabled).toBe(false);
    action(modal, "merged").click();
    await expect(modal.result).resolves.toEqual({ action: "merged", text: vm.clean });
  });

  it.each(["keep-mine", "take-theirs", "keep-both", "cancel"] as const)("resolves %s from its whole-file button and closes", async (name) => {
    const modal = open(conflicted());
    action(modal, name).click();
    await expect(modal.result).resolves.toEqual({ action: name });
    expect(Modal.opened).not.toContain(modal as unknown as Modal);
  });

  it("resolves cancel when closed another way (Escape, click outside), and only once", async () => {
    const modal = open(conflicted());
    modal.close();
    await expect(modal.result).resolves.toEqual({ action: "cancel" });
    expect(modal.contentEl.childElementCount).toBe(0);
  });

  it("opens through openConflictModal", async () => {
    const pending = openConflictModal(new App() as never, clean());
    const modal = Modal.opened.at(-1) as unknown as ConflictModal;
    action(modal, "keep-both").click();
    await expect(pending).resolves.toEqual({ action: "keep-both" });
  });

  it("never uses innerHTML", () => {
    const setter = jest.spyOn(Element.prototype, "innerHTML", "set");
    const inserter = jest.spyOn(Element.prototype, "insertAdjacentHTML");
    const modal = open(conflicted());
    choice(modal, 0, "both").click();
    modal.close();
    expect(setter).not.toHaveBeenCalled();
    expect(inserter).not.toHaveBeenCalled();
    setter.mockRestore();
    inserter.mockRestore();
    const source = readFileSync(join(__dirname, "../../src/ui/conflict-modal.ts"), "utf8");
    expect(source).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML/);
  });
});

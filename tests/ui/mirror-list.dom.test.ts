/** The settings' list of mirrors (src/ui/mirror-list.ts) rendered on Obsidian's DOM helpers with the fake module. */
import { Setting } from "../__mocks__/obsidian";
import { renderMirrorList, type MirrorListing } from "../../src/ui/mirror-list";

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
}

test("lists each mirror with its patterns; editing saves them and Remove forgets the mirror", async () => {
  let mirrors: MirrorListing[] = [
    { id: "a", target: "personal", local_dir: "HackMD/Personal", notes: 3, exclude: ["drafts/"] },
    { id: "b", target: "course/Handouts", local_dir: "Teaching", notes: 1, exclude: [] },
  ];
  const saved: Array<[string, string]> = [];
  const container = document.createElement("div");
  const row = new Setting(container).setName("Mirrored folders");
  const cleanup = renderMirrorList(row as never, {
    list: () => Promise.resolve(mirrors),
    remove: (id) => {
      mirrors = mirrors.filter((mirror) => mirror.id !== id);
      return Promise.resolve();
    },
    setExclude: (id, lines) => {
      saved.push([id, lines]);
      return Promise.resolve();
    },
  });
  await settle();
  const names = () =>
    [...container.querySelectorAll(".hackmd-bridge-mirrors .setting-item-name")].map((el) => el.textContent);
  expect(names()).toEqual(["personal → HackMD/Personal", "course/Handouts → Teaching"]);
  const area = container.querySelector("textarea") as HTMLTextAreaElement;
  expect(area.value).toBe("drafts/");
  area.value = "drafts/\n*.tmp.md";
  area.dispatchEvent(new Event("input"));
  expect(saved).toEqual([["a", "drafts/\n*.tmp.md"]]);
  (container.querySelectorAll("button")[1] as HTMLButtonElement).click();
  await settle();
  expect(names()).toEqual(["personal → HackMD/Personal"]);
  cleanup();
  expect(container.querySelector(".hackmd-bridge-mirrors")).toBeNull();
});

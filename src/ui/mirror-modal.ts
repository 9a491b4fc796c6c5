/**
 * The modal of "Mirror a HackMD workspace": which workspace (personal or a team), optionally one
 * HackMD folder in it (a path such as `Projects/2026`), and the vault folder to keep as its
 * mirror. It resolves the choice, or undefined when cancelled.
 */
import { Modal, Setting, normalizePath, type App } from "obsidian";

/** What the mirror dialog shows. */
export interface MirrorDialog {
  /** Team paths of the account (the personal workspace is always offered). */
  teams: string[];
  /** The vault folder proposed for a workspace and folder path. */
  defaultFolder(teamPath: string | null, folderPath: string): string;
}

/** What the user chose. */
export interface MirrorChoice {
  teamPath: string | null;
  /** A HackMD folder path, `""` for the whole workspace. */
  folderPath: string;
  /** The vault folder. */
  localDir: string;
}

const PERSONAL = "\u0000personal";

/** The words with the brand "HackMD" in them, written as the brand is (docs/style.md). */
const TITLE = "Mirror a HackMD workspace";
const FOLDER_NAME = "HackMD folder";

/** Asks for a mirror. */
export class MirrorModal extends Modal {
  private choice: MirrorChoice;
  private folderEdited = false;
  private settle: ((choice: MirrorChoice | undefined) => void) | undefined;

  /** A mirror dialog over `app`; call `ask()` to show it. */
  constructor(
    app: App,
    private readonly dialog: MirrorDialog,
  ) {
    super(app);
    this.choice = { teamPath: null, folderPath: "", localDir: dialog.defaultFolder(null, "") };
  }

  /** Opens the modal and resolves when it closes. */
  ask(): Promise<MirrorChoice | undefined> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  override onOpen(): void {
    this.setTitle(TITLE);
    this.contentEl.createEl("p", {
      text: "Every note becomes a tracked file in the vault folder; HackMD folders become subfolders. Sync all keeps the mirror whole.",
    });
    let localText: { setValue(value: string): unknown } | undefined;
    const proposeFolder = (): void => {
      if (this.folderEdited) return;
      this.choice = {
        ...this.choice,
        localDir: this.dialog.defaultFolder(this.choice.teamPath, this.choice.folderPath),
      };
      localText?.setValue(this.choice.localDir);
    };
    new Setting(this.contentEl).setName("Workspace").addDropdown((dropdown) => {
      dropdown.addOption(PERSONAL, "Personal");
      for (const team of this.dialog.teams) dropdown.addOption(team, `Team ${team}`);
      dropdown.setValue(PERSONAL).onChange((value) => {
        this.choice = { ...this.choice, teamPath: value === PERSONAL ? null : value };
        proposeFolder();
      });
    });
    new Setting(this.contentEl)
      .setName(FOLDER_NAME)
      .setDesc("Leave empty to mirror the whole workspace, or give a folder path, for example a/b.")
      .addText((text) =>
        text.setPlaceholder("Whole workspace").onChange((value) => {
          this.choice = { ...this.choice, folderPath: value.trim().replace(/^\/+|\/+$/g, "") };
          proposeFolder();
        }),
      );
    new Setting(this.contentEl).setName("Vault folder").addText((text) => {
      localText = text;
      text.setValue(this.choice.localDir).onChange((value) => {
        this.folderEdited = true;
        this.choice = { ...this.choice, localDir: value };
      });
    });
    new Setting(this.contentEl)
      .addButton((button) => button.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((button) =>
        button
          .setButtonText("Mirror")
          .setCta()
          .onClick(() => {
            const localDir = this.choice.localDir.trim() === "" ? "" : normalizePath(this.choice.localDir.trim());
            this.finish({ ...this.choice, localDir });
            this.close();
          }),
      );
  }

  override onClose(): void {
    this.contentEl.empty();
    this.finish(undefined);
  }

  private finish(choice: MirrorChoice | undefined): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(choice);
  }
}

/**
 * The small modal that asks where and how to publish a file as a new note: workspace, folder and
 * permissions, private by default (from the settings). It resolves the choice, or undefined.
 */
import { Modal, Setting, type App, type DropdownComponent } from "obsidian";
import type { Permission } from "../hackmd/types";
import type { PublishChoice, PublishDialog } from "../obsidian/actions";
import { PERMISSIONS } from "../settings/schema";

/** How each permission reads in the dropdowns. */
const PERMISSION_LABELS: Readonly<Record<Permission, string>> = {
  owner: "Only me (owners)",
  signed_in: "Signed-in users",
  guest: "Everyone with the link",
};

const PERSONAL = "\u0000personal";
const ROOT = "\u0000root";

/** Asks for a publish choice. */
export class PublishModal extends Modal {
  private readonly dialog: PublishDialog;
  private choice: PublishChoice;
  private folderDropdown: DropdownComponent | undefined;
  private settle: ((choice: PublishChoice | undefined) => void) | undefined;

  /** A publish dialog over `app`; call `ask()` to show it. */
  constructor(app: App, dialog: PublishDialog) {
    super(app);
    this.dialog = dialog;
    this.choice = { ...dialog.defaults };
  }

  /** Opens the modal and resolves when it closes. */
  ask(): Promise<PublishChoice | undefined> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  override onOpen(): void {
    this.setTitle("Publish as a new note");
    this.contentEl.createEl("p", { text: `${this.dialog.path} becomes a new note and stays linked to it.` });
    new Setting(this.contentEl).setName("Workspace").addDropdown((dropdown) => {
      dropdown.addOption(PERSONAL, "Personal");
      for (const team of this.dialog.teams) dropdown.addOption(team, `Team ${team}`);
      dropdown.setValue(this.choice.teamPath ?? PERSONAL).onChange((value) => {
        this.choice = { ...this.choice, teamPath: value === PERSONAL ? null : value, parentFolderId: undefined };
        void this.loadFolders();
      });
    });
    new Setting(this.contentEl).setName("Folder").addDropdown((dropdown) => {
      this.folderDropdown = dropdown;
      dropdown.addOption(ROOT, "Workspace root").onChange((value) => {
        this.choice = { ...this.choice, parentFolderId: value === ROOT ? undefined : value };
      });
    });
    new Setting(this.contentEl).setName("Who can read").addDropdown((dropdown) => {
      for (const permission of PERMISSIONS) dropdown.addOption(permission, PERMISSION_LABELS[permission]);
      dropdown.setValue(this.choice.readPermission).onChange((value) => {
        this.choice = { ...this.choice, readPermission: value as Permission };
      });
    });
    new Setting(this.contentEl).setName("Who can edit").addDropdown((dropdown) => {
      for (const permission of PERMISSIONS) dropdown.addOption(permission, PERMISSION_LABELS[permission]);
      dropdown.setValue(this.choice.writePermission).onChange((value) => {
        this.choice = { ...this.choice, writePermission: value as Permission };
      });
    });
    new Setting(this.contentEl)
      .addButton((button) => button.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((button) =>
        button
          .setButtonText("Publish")
          .setCta()
          .onClick(() => {
            // HackMD refuses an edit permission more open than the read permission.
            if (PERMISSIONS.indexOf(this.choice.writePermission) > PERMISSIONS.indexOf(this.choice.readPermission)) {
              this.choice = { ...this.choice, writePermission: this.choice.readPermission };
            }
            this.finish(this.choice);
            this.close();
          }),
      );
    void this.loadFolders();
  }

  override onClose(): void {
    this.contentEl.empty();
    this.finish(undefined);
  }

  private async loadFolders(): Promise<void> {
    const dropdown = this.folderDropdown;
    if (!dropdown) return;
    const teamPath = this.choice.teamPath;
    dropdown.selectEl.empty();
    dropdown.addOption(ROOT, "Workspace root");
    try {
      for (const folder of await this.dialog.loadFolders(teamPath)) {
        if (this.choice.teamPath === teamPath) dropdown.addOption(folder.id, folder.name);
      }
    } catch {
      // Folders are optional: publishing to the workspace root still works.
    }
    dropdown.setValue(ROOT);
  }

  private finish(choice: PublishChoice | undefined): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(choice);
  }
}

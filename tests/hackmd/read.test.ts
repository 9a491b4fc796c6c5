import { bodyHash } from "../../src/core/hash";
import {
  patchPath,
  readFolder,
  readFolderOrNull,
  readFolderOrder,
  readHistory,
  readImageLink,
  readMe,
  readNoteDetail,
  readNoteList,
  readTeam,
  readTrash,
  type ReadContext,
} from "../../src/hackmd/read";
import { checkNoTokenLeaks, failure } from "./helpers";

checkNoTokenLeaks();

const personal: ReadContext = { where: "GET /v1/notes/n1", teamPath: null, isDefaultApiUrl: true };
const team: ReadContext = {
  where: "GET /v1/teams/core%2Fteam/notes/n1",
  teamPath: "core/team",
  isDefaultApiUrl: false,
};

const fullNote = {
  id: "n1",
  shortId: "SysJb0yAY",
  title: "Weekly",
  content: "# Weekly\n",
  description: "desc",
  tags: ["a", 3, "b"],
  folderPaths: [{ id: "f-root" }, { id: "f-child", name: "x" }, { name: "no id" }],
  createdAt: 1000.4,
  lastChangedAt: 1999.5,
  titleUpdatedAt: 5,
  tagsUpdatedAt: null,
  lastChangeUser: { name: "Ada", userPath: "ada", photo: null },
  publishType: "view",
  publishedAt: null,
  publishLink: "https://hackmd.io/@me/weekly",
  permalink: "weekly",
  userPath: "me",
  teamPath: null,
  readPermission: "guest",
  writePermission: "owner",
  commentPermission: "everyone",
  extraField: { ignored: true },
};

describe("note detail (docs/tools.md §5.2)", () => {
  it("maps a full note to snake_case with rounded timestamps, body_hash and note_url", async () => {
    const detail = await readNoteDetail(fullNote, personal);
    expect(detail).toEqual({
      id: "n1",
      short_id: "SysJb0yAY",
      title: "Weekly",
      content: "# Weekly\n",
      body_hash: await bodyHash("# Weekly\n"),
      description: "desc",
      tags: ["a", "b"],
      team_path: null,
      patch_path: "notes/n1.md",
      folder_ids: ["f-root", "f-child"],
      created_at: 1000,
      last_changed_at: 2000,
      title_updated_at: 5,
      last_change_user: { name: "Ada", user_path: "ada", photo: "", biography: "" },
      publish_type: "view",
      publish_link: "https://hackmd.io/@me/weekly",
      permalink: "weekly",
      user_path: "me",
      read_permission: "guest",
      write_permission: "owner",
      comment_permission: "everyone",
      note_url: "https://hackmd.io/n1",
    });
    expect(Object.keys(detail).slice(0, 5)).toEqual(["id", "short_id", "title", "content", "body_hash"]);
  });

  it("is lenient with nulls, unknown enumerations and odd shapes", async () => {
    const detail = await readNoteDetail(
      {
        id: "n2",
        title: null,
        tags: null,
        folderPaths: null,
        readPermission: "everyone",
        writePermission: 7,
        publishType: "zine",
        commentPermission: "sometimes",
        lastChangeUser: "someone",
      },
      team,
    );
    expect(detail).toEqual({
      id: "n2",
      short_id: null,
      title: "",
      description: null,
      tags: [],
      team_path: "core/team",
      patch_path: "teams/core/team/notes/n2.md",
      folder_ids: [],
      created_at: null,
      last_changed_at: null,
      publish_link: null,
      permalink: null,
      user_path: null,
      read_permission: null,
      write_permission: null,
      comment_permission: null,
    });
    expect(detail).not.toHaveProperty("content");
    expect(detail).not.toHaveProperty("body_hash");
    expect(detail).not.toHaveProperty("note_url");
  });

  it("fails with upstream for a note without id, a non-object or an out-of-range timestamp, never quoting it", async () => {
    for (const raw of [
      { title: "x" },
      { id: "" },
      [],
      "text",
      null,
      { id: "n", createdAt: Infinity },
      { id: "n", lastChangedAt: 2 ** 60 },
    ]) {
      const error = await failure(readNoteDetail(raw, personal));
      expect(error.kind).toBe("upstream");
      expect(error.message.startsWith("GET /v1/notes/n1: ")).toBe(true);
      expect(error.message).not.toContain("text");
    }
  });

  it("builds unencoded patch paths", () => {
    expect(patchPath(null, "a b")).toBe("notes/a b.md");
    expect(patchPath("core/team", "x")).toBe("teams/core/team/notes/x.md");
  });
});

describe("lists", () => {
  it("reads slim summaries with note_url only for the default API URL", () => {
    const [summary] = readNoteList([{ ...fullNote }], personal);
    expect(summary).toEqual({
      id: "n1",
      note_url: "https://hackmd.io/n1",
      short_id: "SysJb0yAY",
      title: "Weekly",
      description: "desc",
      tags: ["a", "b"],
      team_path: null,
      created_at: 1000,
      last_changed_at: 2000,
      publish_link: "https://hackmd.io/@me/weekly",
      permalink: "weekly",
      read_permission: "guest",
      write_permission: "owner",
    });
    const [teamSummary] = readNoteList([{ id: "t1" }], team);
    expect(teamSummary).not.toHaveProperty("note_url");
    expect(teamSummary?.team_path).toBe("core/team");
  });

  it("reads history in both forms, keeping order, last_visit and each entry's team", () => {
    const items = [
      { id: "a", lastVisit: 10.6, teamPath: "core" },
      { id: "b", teamPath: null },
    ];
    for (const raw of [items, { history: items }]) {
      const history = readHistory(raw, { ...personal, where: "GET /v1/history" });
      expect(history.map((entry) => [entry.id, entry.team_path, entry.last_visit])).toEqual([
        ["a", "core", 11],
        ["b", null, undefined],
      ]);
      expect(history[0]).not.toHaveProperty("content");
      expect(Object.keys(history[0] ?? {}).indexOf("last_visit")).toBe(
        Object.keys(history[0] ?? {}).indexOf("last_changed_at") + 1,
      );
    }
  });

  it("reads trash as personal summaries without note_url", () => {
    const trash = readTrash([{ id: "t", title: "Old", tags: ["x"], deletedAt: 5, shortId: "s" }], personal);
    expect(trash).toEqual([
      {
        id: "t",
        short_id: "s",
        title: "Old",
        description: null,
        tags: ["x"],
        team_path: null,
        created_at: null,
        last_changed_at: null,
        publish_link: null,
        permalink: null,
        read_permission: null,
        write_permission: null,
      },
    ]);
  });

  it("refuses a list that is not an array", async () => {
    const error = await failure(Promise.resolve().then(() => readNoteList({ notes: [] }, personal)));
    expect(error.kind).toBe("upstream");
  });
});

describe("folders, teams, profile, images", () => {
  it("reads folders and treats an object without id as no folder", () => {
    expect(
      readFolder(
        {
          id: "f",
          name: null,
          icon: "1F600",
          color: "#4F46E5",
          parentFolderId: "p",
          createdAt: 1.2,
          updatedAt: 3,
          clientId: "c",
        },
        personal,
      ),
    ).toEqual({
      id: "f",
      name: "",
      description: null,
      icon: "1F600",
      color: "#4F46E5",
      parent_folder_id: "p",
      created_at: 1,
      updated_at: 3,
    });
    expect(readFolderOrNull({}, personal)).toBeNull();
  });

  it("reads the order map keeping odd keys as plain entries", () => {
    const order = readFolderOrder(JSON.parse('{"root":["a","b"],"__proto__":["z"]}'), personal);
    expect(Object.keys(order)).toEqual(["root", "__proto__"]);
    expect(order.root).toEqual(["a", "b"]);
    expect(Object.getPrototypeOf(order)).toBe(Object.prototype);
  });

  it("refuses an order map it cannot read whole, since it is written back whole", () => {
    for (const raw of ['{"root":["a",1,"b"]}', '{"root":["a"],"p":"x"}']) {
      expect(() => readFolderOrder(JSON.parse(raw), personal)).toThrow(/not a list of folder ids/);
    }
  });

  it("reads teams leniently", () => {
    expect(
      readTeam(
        { id: "t", name: null, path: "core", hardLimit: "many", visibility: "secret", upgraded: "yes" },
        personal,
      ),
    ).toEqual({
      id: "t",
      name: "",
      path: "core",
      description: null,
      hard_limit: null,
    });
    expect(
      readTeam(
        {
          id: "t",
          ownerId: "o",
          name: "Core",
          logo: "l",
          path: "core",
          description: "d",
          hardLimit: 5,
          visibility: "private",
          createdAt: 9.9,
          upgraded: true,
        },
        personal,
      ),
    ).toEqual({
      id: "t",
      owner_id: "o",
      name: "Core",
      logo: "l",
      path: "core",
      description: "d",
      hard_limit: 5,
      visibility: "private",
      created_at: 10,
      upgraded: true,
    });
  });

  it("reads the profile with teams null when HackMD left them out", () => {
    expect(readMe({ id: "u", name: "Me", userPath: "me", email: null, teams: null, Teams: [{}] }, personal)).toEqual({
      id: "u",
      name: "Me",
      email: null,
      user_path: "me",
      photo: null,
      teams: null,
    });
    const me = readMe(
      {
        id: "u",
        name: "Me",
        userPath: "me",
        photo: "p",
        teams: [{ id: "t", path: "core", name: "C" }],
        upgraded: false,
      },
      personal,
    );
    expect(me.teams?.map((t) => t.path)).toEqual(["core"]);
    expect(me.upgraded).toBe(false);
  });

  it("reads the image link", () => {
    expect(readImageLink({ data: { link: "https://hackmd.io/_uploads/x.png" } })).toBe(
      "https://hackmd.io/_uploads/x.png",
    );
    expect(readImageLink({ data: {} })).toBeNull();
    expect(readImageLink({ link: "https://x" })).toBeNull();
    expect(readImageLink({ data: { link: "javascript:alert(1)" } })).toBeNull();
  });
});

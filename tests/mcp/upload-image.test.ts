import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BridgeError } from "../../src/core/errors";
import type { ImageFetcher } from "../../src/core/image";
import { DEMO_NOTE_IDS } from "../../src/emulator";
import { errorKind, ok, startBridge, type TestBridge } from "../helpers/bridge";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3, 4]);
const NOTE = DEMO_NOTE_IDS.readingList;

describe("hackmd_upload_note_image", () => {
  let bridge: TestBridge;
  const fetched: string[] = [];
  const fakeFetcher: ImageFetcher = {
    available: true,
    fetch: (url) => {
      fetched.push(url);
      if (url.includes("private"))
        return Promise.reject(new BridgeError("invalid_input", "the host points at a private address"));
      return Promise.resolve({ bytes: PNG, contentType: "image/png", finalUrl: url });
    },
  };
  beforeEach(async () => {
    fetched.length = 0;
    bridge = await startBridge({ images: fakeFetcher });
    await mkdir(join(bridge.root, "img"));
    await writeFile(join(bridge.root, "img", "chart.png"), PNG);
    await writeFile(join(bridge.root, "img", "page.png"), "<!doctype html><html></html>");
    bridge.mark();
  });
  afterEach(async () => {
    await bridge.close();
  });

  it("uploads a local file as one multipart POST and reports the link", async () => {
    const out = ok(await bridge.call("hackmd_upload_note_image", { note_ref: NOTE, image_path: "img/chart.png" }));
    expect(out.link).toMatch(/\/_uploads\/.+\.png$/);
    // The emulator serves images on the API origin, so the link counts as HackMD's own site and is
    // probed with one signed-out HEAD, which the emulator answers with the image: readable.
    expect(out.publicly_readable).toBe(true);
    // Image reads are not API requests: the log holds only the upload.
    expect(bridge.requestsSinceMark()).toEqual(["POST /notes/:noteId/images"]);
    const image = Object.values(bridge.emu.inspect().images)[0] as
      { bytes: Uint8Array; contentType: string } | undefined;
    expect(image?.contentType).toBe("image/png");
  });

  it("accepts an absolute path inside the root and team_path although it is not advertised", async () => {
    ok(
      await bridge.call("hackmd_upload_note_image", {
        note_ref: DEMO_NOTE_IDS.spec,
        team_path: "sandbox-team",
        image_path: join(bridge.root, "img/chart.png"),
      }),
    );
    const tools = await bridge.client.listTools();
    const schema = tools.tools.find((entry) => entry.name === "hackmd_upload_note_image")?.inputSchema as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(schema.properties)).not.toContain("team_path");
  });

  it("uploads from a URL through the image fetcher, naming the file from the URL", async () => {
    const out = ok(
      await bridge.call("hackmd_upload_note_image", {
        note_ref: NOTE,
        image_url: "https://images.example/a.b.png?x=1",
      }),
    );
    expect(out.link).toMatch(/\.png$/);
    expect(fetched).toEqual(["https://images.example/a.b.png?x=1"]);
  });

  it("refuses bad inputs before any request or download", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ note_ref: NOTE }, "invalid_input"],
      [{ note_ref: NOTE, image_path: "img/chart.png", image_url: "https://e.x/a.png" }, "invalid_input"],
      [{ note_ref: NOTE, image_path: "img/page.png" }, "invalid_input"],
      [{ note_ref: NOTE, image_path: "img/missing.png" }, "invalid_input"],
      [{ note_ref: NOTE, image_path: "../outside.png" }, "local_access"],
      [{ note_ref: NOTE, image_path: "/etc/hostname" }, "local_access"],
      [{ note_ref: NOTE, image_url: "http://e.x/a.png" }, "invalid_input"],
      [{ note_ref: NOTE, image_url: "https://e.x:8443/a.png" }, "invalid_input"],
      [{ note_ref: NOTE, image_url: "https://user:pw@e.x/a.png" }, "invalid_input"],
    ];
    for (const [args, kind] of cases) expect(errorKind(await bridge.call("hackmd_upload_note_image", args))).toBe(kind);
    expect(bridge.requestsSinceMark()).toEqual([]);
    expect(fetched).toEqual([]);
    // A refused download (e.g. a private address) costs the note resolution only: no upload.
    expect(
      errorKind(
        await bridge.call("hackmd_upload_note_image", { note_ref: NOTE, image_url: "https://private.example/a.png" }),
      ),
    ).toBe("invalid_input");
    expect(bridge.emu.requests({ method: "POST" })).toHaveLength(0);
  });

  it("needs confirmation above 5 MiB and refuses above 10 MiB", async () => {
    const big = new Uint8Array(6 * 1024 * 1024);
    big.set(PNG);
    await writeFile(join(bridge.root, "img", "big.png"), big);
    const unconfirmed = await bridge.call("hackmd_upload_note_image", { note_ref: NOTE, image_path: "img/big.png" });
    expect(errorKind(unconfirmed)).toBe("confirmation_required");
    expect(unconfirmed.content[0]?.text).toContain("confirm_large_file");
    const huge = new Uint8Array(11 * 1024 * 1024);
    huge.set(PNG);
    await writeFile(join(bridge.root, "img", "huge.png"), huge);
    expect(
      errorKind(
        await bridge.call("hackmd_upload_note_image", {
          note_ref: NOTE,
          image_path: "img/huge.png",
          confirm_large_file: true,
        }),
      ),
    ).toBe("too_large");
    expect(bridge.requestsSinceMark()).toEqual([]);
  });

  it("refuses image_url on a host without sockets", async () => {
    const mobile = await startBridge();
    try {
      expect(
        errorKind(await mobile.call("hackmd_upload_note_image", { note_ref: NOTE, image_url: "https://e.x/a.png" })),
      ).toBe("invalid_input");
      expect(mobile.emu.requests()).toHaveLength(0);
    } finally {
      await mobile.close();
    }
  });
});

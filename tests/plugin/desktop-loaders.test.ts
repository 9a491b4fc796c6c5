import { Platform } from "../__mocks__/obsidian";
import { BridgeError } from "../../src/core/errors";
import { desktopImageFetcher } from "../../src/obsidian/desktop-loaders";

describe("desktop-only capabilities of the plugin", () => {
  afterEach(() => {
    Platform.isDesktopApp = true;
  });

  it("refuses image_url on mobile (docs/tools.md §16.9)", async () => {
    Platform.isDesktopApp = false;
    const fetcher = desktopImageFetcher();
    expect(fetcher.available).toBe(false);
    await expect(
      fetcher.fetch("https://example.com/a.png", { maxBytes: 10, confirmLargeFile: false }),
    ).rejects.toMatchObject({ kind: "invalid_input" });
  });

  it("loads the SSRF-safe Node fetcher on first use on desktop, which still refuses private addresses", async () => {
    Platform.isDesktopApp = true;
    const fetcher = desktopImageFetcher();
    expect(fetcher.available).toBe(true);
    const refused = fetcher.fetch("https://127.0.0.1/a.png", { maxBytes: 1024, confirmLargeFile: false });
    await expect(refused).rejects.toBeInstanceOf(BridgeError);
    await expect(refused).rejects.toMatchObject({ kind: "invalid_input" });
  });
});

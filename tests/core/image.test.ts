import { BridgeError } from "../../src/core/errors";
import {
  IMAGE_CONFIRM_THRESHOLD_BYTES,
  IMAGE_MAX_BYTES,
  NOT_AN_IMAGE_MESSAGE,
  checkImageUrlSyntax,
  classifyPubliclyReadable,
  describeUrlTarget,
  hackmdSiteOrigins,
  imageCutOffError,
  imageDownloadLimit,
  imageSizeRule,
  isHackmdSiteLink,
  requireImageType,
  sniffImageType,
  unavailableImageFetcher,
  uploadNameFromPath,
  uploadNameFromUrl,
  type ImageType,
  type ReadabilityProbeAnswer,
} from "../../src/core/image";

const MiB = 1024 * 1024;
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/** The BridgeError `run` throws (fails the test when it throws nothing or something else). */
function caught(run: () => unknown): BridgeError {
  try {
    run();
  } catch (error) {
    if (error instanceof BridgeError) return error;
    throw error;
  }
  throw new Error("expected a BridgeError");
}

describe("sniffImageType", () => {
  it.each<[string, Uint8Array, ImageType]>([
    ["PNG", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d), "image/png"],
    ["PNG (signature only)", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), "image/png"],
    ["JPEG", bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46), "image/jpeg"],
    ["JPEG (three bytes)", bytes(0xff, 0xd8, 0xff), "image/jpeg"],
    ["GIF87a", text("GIF87a\x01\x00"), "image/gif"],
    ["GIF89a", text("GIF89a\x01\x00"), "image/gif"],
    ["WebP", text("RIFF\x24\x00\x00\x00WEBPVP8 "), "image/webp"],
    ["WebP (12 bytes)", text("RIFF\x00\x00\x00\x00WEBP"), "image/webp"],
  ])("recognises %s", (_name, head, type) => {
    expect(sniffImageType(head)).toBe(type);
    expect(requireImageType(head)).toBe(type);
  });

  it.each<[string, Uint8Array]>([
    ["an HTML page", text("<!DOCTYPE html>\n<html><head><title>Image</title></head></html>")],
    ["an HTML page with leading whitespace", text("  \n<html><body><img src=x></body></html>")],
    [
      "a PEM private key",
      text(
        "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n",
      ),
    ],
    ["an OpenSSH private key", text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n")],
    ["a text file", text("just some notes\n")],
    ["SVG", text('<svg xmlns="http://www.w3.org/2000/svg"></svg>')],
    ["an empty file", new Uint8Array(0)],
    ["a truncated PNG signature", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a)],
    ["two JPEG bytes", bytes(0xff, 0xd8)],
    ["GIF88a", text("GIF88a")],
    ["RIFF that is not WebP", text("RIFF\x24\x00\x00\x00WAVEfmt ")],
    ["RIFF shorter than 12 bytes", text("RIFF\x00\x00\x00\x00WEB")],
    ["WEBP at the wrong offset", text("RIFF\x00\x00\x00WEBP\x00")],
    ["a PDF", text("%PDF-1.7\n")],
  ])("refuses %s", (_name, head) => {
    expect(sniffImageType(head)).toBeUndefined();
    const error = caught(() => requireImageType(head));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(NOT_AN_IMAGE_MESSAGE);
    expect(error.message).toContain("not a PNG, JPEG, GIF or WebP image");
  });
});

describe("imageSizeRule", () => {
  it("accepts up to 5 MiB without confirmation", () => {
    expect(() => imageSizeRule({ size: 0, confirmLargeFile: false })).not.toThrow();
    expect(() => imageSizeRule({ size: 5 * MiB, confirmLargeFile: false })).not.toThrow();
  });

  it("needs confirmation one byte above 5 MiB, naming the size and the flag", () => {
    const error = caught(() => imageSizeRule({ size: 5 * MiB + 1, confirmLargeFile: false }));
    expect(error.kind).toBe("confirmation_required");
    expect(error.message).toContain(`the image is ${5 * MiB + 1} bytes`);
    expect(error.message).toContain("confirm_large_file");
    expect(error.message).toContain("resize it below 5 MiB");
  });

  it("accepts up to 10 MiB once confirmed", () => {
    expect(() => imageSizeRule({ size: 5 * MiB + 1, confirmLargeFile: true })).not.toThrow();
    expect(() => imageSizeRule({ size: 10 * MiB, confirmLargeFile: true })).not.toThrow();
  });

  it("refuses above 10 MiB even when confirmed, stating the size and the ceiling", () => {
    for (const confirmLargeFile of [true, false]) {
      const error = caught(() => imageSizeRule({ size: 10 * MiB + 1, confirmLargeFile }));
      expect(error.kind).toBe("too_large");
      expect(error.message).toContain(`the image is ${10 * MiB + 1} bytes`);
      expect(error.message).toContain("10 MiB");
    }
  });

  it("has the documented thresholds", () => {
    expect(IMAGE_CONFIRM_THRESHOLD_BYTES).toBe(5 * MiB);
    expect(IMAGE_MAX_BYTES).toBe(10 * MiB);
    expect(imageDownloadLimit(false)).toBe(5 * MiB);
    expect(imageDownloadLimit(true)).toBe(10 * MiB);
  });

  it("words a cut-off download as larger than the limit in force", () => {
    const unconfirmed = imageCutOffError(false);
    expect(unconfirmed.kind).toBe("confirmation_required");
    expect(unconfirmed.message).toContain(`larger than ${5 * MiB} bytes`);
    expect(unconfirmed.message).toContain("confirm_large_file");
    const confirmed = imageCutOffError(true);
    expect(confirmed.kind).toBe("too_large");
    expect(confirmed.message).toContain(`larger than ${10 * MiB} bytes`);
  });
});

describe("upload file names", () => {
  it.each<[string, ImageType, string]>([
    ["https://i.imgur.com/KC1dCXq.jpg?x=1", "image/jpeg", "KC1dCXq.jpg"],
    ["https://e.x/x.png", "image/jpeg", "x.jpg"],
    ["https://e.x/pic.png", "image/gif", "pic.gif"],
    ["https://e.x/download", "image/webp", "download.webp"],
    ["https://e.x/a.b.png", "image/png", "a-b.png"],
    ["https://e.x/%E5%9C%96.png", "image/png", "image.png"],
    ["https://example.com/", "image/gif", "image.gif"],
  ])("names %s served as %s %s", (url, type, name) => {
    expect(uploadNameFromUrl(url, type)).toBe(name);
  });

  it("handles the edges of the naming rule", () => {
    expect(uploadNameFromUrl("https://e.x/dir/photo.final.v2.jpeg#frag", "image/jpeg")).toBe("photo-final-v2.jpg");
    expect(uploadNameFromUrl("https://e.x/.png", "image/png")).toBe("image.png");
    expect(uploadNameFromUrl("https://e.x/x.", "image/png")).toBe("x.png");
    expect(uploadNameFromUrl("https://e.x/my%20pic.png", "image/png")).toBe("image.png");
    expect(uploadNameFromUrl("https://e.x/a+b.png", "image/png")).toBe("image.png");
    expect(uploadNameFromUrl("https://e.x/under_score-dash.gif", "image/gif")).toBe("under_score-dash.gif");
    expect(uploadNameFromUrl("https://e.x", "image/webp")).toBe("image.webp");
    expect(uploadNameFromUrl("not a url", "image/png")).toBe("image.png");
    const long = "a".repeat(150);
    expect(uploadNameFromUrl(`https://e.x/${long}.png`, "image/png")).toBe(`${"a".repeat(100)}.png`);
  });

  it("names a local file by its own name", () => {
    expect(uploadNameFromPath("images/cat.png")).toBe("cat.png");
    expect(uploadNameFromPath("/abs/root/images/photo.final.jpeg")).toBe("photo.final.jpeg");
    expect(uploadNameFromPath("cat.png")).toBe("cat.png");
    expect(uploadNameFromPath("C:\\vault\\pics\\dog.gif")).toBe("dog.gif");
    expect(uploadNameFromPath("folder/")).toBe("image");
    expect(uploadNameFromPath("")).toBe("image");
  });
});

describe("checkImageUrlSyntax", () => {
  it("accepts https URLs on the default port", () => {
    expect(checkImageUrlSyntax("https://i.imgur.com/KC1dCXq.jpg?x=1").href).toBe("https://i.imgur.com/KC1dCXq.jpg?x=1");
    expect(checkImageUrlSyntax("https://e.x:443/a.png").href).toBe("https://e.x/a.png");
    expect(checkImageUrlSyntax("HTTPS://E.X/a.png").hostname).toBe("e.x");
  });

  it.each(["", "not a url", "/relative/a.png", "//e.x/a.png", "e.x/a.png", "https://"])(
    "refuses %j as not an absolute URL",
    (raw) => {
      const error = caught(() => checkImageUrlSyntax(raw));
      expect(error.kind).toBe("invalid_input");
      expect(error.message).toBe("image_url is not a valid absolute URL");
    },
  );

  it.each([
    "http://e.x/a.png",
    "ftp://e.x/a.png",
    "file:///etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
    "https://e.x:8443/a.png",
    "https://e.x:80/a.png",
    "https://user@e.x/a.png",
    "https://user:secret@e.x/a.png",
    "https://:secret@e.x/a.png",
  ])("refuses %s (scheme, port or credentials) without echoing it", (raw) => {
    const error = caught(() => checkImageUrlSyntax(raw));
    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe("image_url must use https on its default port, with no credentials");
    expect(error.message).not.toContain("secret");
  });

  it("describes a target by scheme, host and port only", () => {
    expect(describeUrlTarget(new URL("https://user:pw@e.x:8443/secret/path?token=1"))).toBe("https://e.x:8443");
    expect(describeUrlTarget(new URL("http://e.x/a"))).toBe("http://e.x");
    expect(describeUrlTarget(new URL("https://[::1]/a"))).toBe("https://[::1]");
  });
});

describe("publicly_readable", () => {
  const apiUrl = "https://api.hackmd.io/v1";
  const link = "https://hackmd.io/_uploads/abc.png";
  const answer = (status: number, headers: Record<string, string> = {}): ReadabilityProbeAnswer => ({
    status,
    headers,
  });
  const classify = (probe: ReadabilityProbeAnswer | undefined, onLink = link): boolean | null =>
    classifyPubliclyReadable({ link: onLink, apiUrl, answer: probe });
  const v2 = "https://s3.amazonaws.com/b/abc.png?AWSAccessKeyId=AKIA&Expires=1700000000&Signature=abc%3D";
  const v4 =
    "https://b.s3.ap-northeast-1.amazonaws.com/abc.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20240101&X-Amz-Date=20240101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=deadbeef";

  it("knows HackMD's own origins", () => {
    expect(hackmdSiteOrigins(apiUrl)).toEqual(["https://api.hackmd.io", "https://hackmd.io"]);
    expect(hackmdSiteOrigins("http://127.0.0.1:3000/v1")).toEqual(["http://127.0.0.1:3000"]);
    expect(hackmdSiteOrigins("https://api.example.com:8443/")).toEqual([
      "https://api.example.com:8443",
      "https://example.com:8443",
    ]);
    expect(hackmdSiteOrigins("nonsense")).toEqual([]);
    expect(isHackmdSiteLink({ link, apiUrl })).toBe(true);
    expect(isHackmdSiteLink({ link: "https://api.hackmd.io/x.png", apiUrl })).toBe(true);
    expect(isHackmdSiteLink({ link: "https://i.imgur.com/x.png", apiUrl })).toBe(false);
    expect(isHackmdSiteLink({ link: "http://hackmd.io/x.png", apiUrl })).toBe(false);
    expect(isHackmdSiteLink({ link: "https://hackmd.io.evil.example/x.png", apiUrl })).toBe(false);
    expect(isHackmdSiteLink({ link: "https://hackmd.io:8443/x.png", apiUrl })).toBe(false);
    expect(isHackmdSiteLink({ link: "not a link", apiUrl })).toBe(false);
  });

  it("is null for a link off HackMD's site, whatever the answer", () => {
    expect(classify(answer(200, { "content-type": "image/png" }), "https://i.imgur.com/x.png")).toBeNull();
    expect(classify(answer(403), "https://cdn.example.com/x.png")).toBeNull();
  });

  it("is true for a 2xx image, in any letter case", () => {
    expect(classify(answer(200, { "content-type": "image/png" }))).toBe(true);
    expect(classify(answer(200, { "content-type": "Image/PNG" }))).toBe(true);
    expect(classify(answer(203, { "content-type": "image/webp; charset=binary" }))).toBe(true);
  });

  it("is true for a redirect to signed S3 storage (v2 and v4)", () => {
    for (const status of [301, 302, 303, 307, 308]) {
      expect(classify(answer(status, { location: v2 }))).toBe(true);
      expect(classify(answer(status, { location: v4 }))).toBe(true);
    }
  });

  it("is false for 401 and 403", () => {
    expect(classify(answer(401))).toBe(false);
    expect(classify(answer(403, { "content-type": "text/html" }))).toBe(false);
  });

  it.each<[string, ReadabilityProbeAnswer | undefined]>([
    ["a failed probe", undefined],
    [
      "a redirect to the site's login page",
      answer(302, { location: "https://hackmd.io/login?redirect=%2F_uploads%2Fabc.png" }),
    ],
    ["a relative login redirect", answer(302, { location: "/login" })],
    [
      "a redirect to a sign-in provider",
      answer(302, { location: "https://accounts.google.com/o/oauth2/v2/auth?client_id=x" }),
    ],
    [
      "a signed SAML redirect to a sign-in provider",
      answer(302, { location: "https://idp.example.com/sso?SAMLRequest=abc&SigAlg=rsa-sha256&Signature=xyz" }),
    ],
    [
      "a scheme-relative redirect",
      answer(302, { location: "//s3.amazonaws.com/b/abc.png?AWSAccessKeyId=A&Expires=1&Signature=s" }),
    ],
    ["an unsigned storage redirect", answer(302, { location: "https://s3.amazonaws.com/b/abc.png" })],
    [
      "a v2 redirect with an empty signature",
      answer(302, { location: "https://s3.amazonaws.com/b/abc.png?AWSAccessKeyId=A&Expires=1&Signature=" }),
    ],
    [
      "a v2 redirect without Expires",
      answer(302, { location: "https://s3.amazonaws.com/b/abc.png?AWSAccessKeyId=A&Signature=s" }),
    ],
    [
      "a v4 redirect without a signature",
      answer(307, { location: "https://b.s3.amazonaws.com/abc.png?X-Amz-Credential=c&X-Amz-Expires=300" }),
    ],
    ["a plain-http storage redirect", answer(302, { location: v2.replace("https:", "http:") })],
    ["a redirect without Location", answer(302)],
    ["304", answer(304, { location: v2 })],
    ["a non-image 200", answer(200, { "content-type": "text/html; charset=utf-8" })],
    ["a 200 without a content type", answer(200)],
    ["404", answer(404)],
    ["500", answer(500)],
    ["429", answer(429)],
  ])("is null for %s", (_name, probe) => {
    expect(classify(probe)).toBeNull();
  });
});

describe("image fetcher capability", () => {
  it("refuses image_url on a host without sockets, suggesting image_path", async () => {
    expect(unavailableImageFetcher.available).toBe(false);
    const error = await unavailableImageFetcher
      .fetch("https://i.imgur.com/KC1dCXq.jpg", { maxBytes: 5 * MiB, confirmLargeFile: false })
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(BridgeError);
    expect((error as BridgeError).kind).toBe("invalid_input");
    expect((error as BridgeError).message).toContain("image_path");
  });
});

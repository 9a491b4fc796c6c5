/**
 * The store keeps conversion files (`convert/<key>.json`, docs/conversion-rules.md) parsed in
 * memory and reads one again only when its stamp changed: a relink asks for every record's
 * conversion after each note that becomes tracked (src/sync/service.ts, relinkOthers). What
 * another process writes is still seen, and a conversion written for another baseline still
 * counts as none.
 */
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConversionDependencies } from "../../src/convert";
import { silentLogger } from "../../src/core/ports";
import { NodeLocalFiles } from "../../src/node/local-files";
import { SyncStateStore, type KeyedRecord } from "../../src/sync/store";

const conversion = (answer: string): ConversionDependencies => ({
  enabled: true,
  linkFormat: "shortest",
  answers: [["target:note:Other", answer]],
  comments: [],
});

describe("the store's conversion files", () => {
  let root: string;
  let files: NodeLocalFiles;
  let store: SyncStateStore;
  const state = (): string => join(root, ".hackmd-bridge/sync");
  const conversionReads = (read: jest.SpyInstance): number =>
    read.mock.calls.filter(([path]) => String(path).startsWith("convert/personal--")).length;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "hb-store-conv-"));
    files = await NodeLocalFiles.open({ root });
    store = new SyncStateStore({ files: files.state, logger: silentLogger });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(root, { recursive: true, force: true });
  });

  const save = (noteId: string, answer: string, baseline = "body\n"): Promise<KeyedRecord> =>
    store.save({
      teamPath: null,
      noteId,
      localPath: `${noteId}.md`,
      baseline,
      timestamp: "1",
      conversion: conversion(answer),
    });

  it("reads each file once, then answers from memory until it changes", async () => {
    const records = [await save("a1", "Other.md"), await save("b2", "Other.md"), await save("c3", null as never)];
    const read = jest.spyOn(files.state, "read");
    for (let round = 0; round < 3; round++)
      for (const found of records) expect((await store.conversionOf(found))?.enabled).toBe(true);
    expect(conversionReads(read)).toBe(3);
    // A save replaces the file: the next use reads it again, once.
    const saved = await save("a1", "Elsewhere/Other.md");
    for (let round = 0; round < 3; round++)
      expect((await store.conversionOf(saved))?.answers).toEqual([["target:note:Other", "Elsewhere/Other.md"]]);
    expect(conversionReads(read)).toBe(4);
  });

  it("reads a file again once another process replaced it, and a removed file is none", async () => {
    const found = await save("a1", "Other.md");
    expect((await store.conversionOf(found))?.answers).toEqual([["target:note:Other", "Other.md"]]);
    const file = join(state(), "convert/personal--a1.json");
    const stored = {
      baseline_body_hash: found.record.baseline_body_hash,
      dependencies: conversion("Elsewhere/Other.md"),
    };
    await writeFile(`${file}.tmp`, `${JSON.stringify(stored)}\n`);
    await rename(`${file}.tmp`, file);
    expect((await store.conversionOf(found))?.answers).toEqual([["target:note:Other", "Elsewhere/Other.md"]]);
    await rm(file);
    expect(await store.conversionOf(found)).toBeUndefined();
  });

  it("a conversion kept for an older baseline counts as none for the record saved since", async () => {
    const first = await save("a1", "Other.md", "one\n");
    expect(await store.conversionOf(first)).toBeDefined();
    // Another process saves the note without a conversion file change visible to this store's memory.
    const other = new SyncStateStore({ files: files.state, logger: silentLogger });
    const second = await other.save({
      teamPath: null,
      noteId: "a1",
      localPath: "a1.md",
      baseline: "two\n",
      timestamp: "2",
    });
    expect(await store.conversionOf(second)).toBeUndefined();
  });
});

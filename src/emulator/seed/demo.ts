/** The `demo` seed (§2.13): a collaborator, folders and five realistic notes (one in the trash), comments on the weekly sync. */
import type { SeedData } from "../types";
import { emptySeed } from "./empty";

const DAY = 86_400_000;

/** Fixed ids of the demo notes, for tests and documentation. */
export const DEMO_NOTE_IDS = {
  weeklySync: "d2Vla2x5LXN5bmMtYXVyb3",
  cs101: "Y3MxMDEtc29ydGluZy1oYW",
  spec: "c3BlYy1vZmZsaW5lLXN5bm",
  readingList: "cmVhZGluZy1saXN0LW5vdG",
  oldDraft: "b2xkLWRyYWZ0LXRyYXNoZW",
} as const;

/** Fixed ids of the demo note's comments (on the weekly sync): two open threads, one resolved. */
export const DEMO_COMMENT_IDS = {
  checklist: "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d01",
  checklistReply: "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d02",
  headings: "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d03",
  lab: "7d1e9c2a-4b3f-4a5e-8c6d-1f2a3b4c5d04",
} as const;

const WEEKLY_SYNC = `# Weekly sync — Project Aurora

**Date:** 2024-05-14 · **Facilitator:** Sandbox User

## Attendees
- Sandbox User
- Ada Collaborator
- Grace (design)

## Agenda
1. Status of the offline sync prototype
2. Field-test plan for June
3. Risks and blockers

## Decisions
- Ship the prototype to the pilot group behind a feature flag.
- Keep the conflict dialog; drop automatic merging of headings for now.

## Action items
- [ ] Draft the field-test checklist — @ada, due 2024-05-21
- [ ] Benchmark sync on 2,000 notes — @sandbox, due 2024-05-24
- [x] Book the usability lab — @grace, done 2024-05-13
`;

const CS101 = `---
title: "CS101 handout: sorting algorithms"
tags: [cs101, teaching]
---

# CS101 handout: sorting algorithms

| Algorithm | Best | Average | Worst | Stable |
|---|---|---|---|---|
| Insertion sort | O(n) | O(n²) | O(n²) | yes |
| Merge sort | O(n log n) | O(n log n) | O(n log n) | yes |
| Quicksort | O(n log n) | O(n log n) | O(n²) | no |
| Heapsort | O(n log n) | O(n log n) | O(n log n) | no |

## Insertion sort in Python

\`\`\`python
def insertion_sort(items):
    for i in range(1, len(items)):
        key = items[i]
        j = i - 1
        while j >= 0 and items[j] > key:
            items[j + 1] = items[j]
            j -= 1
        items[j + 1] = key
    return items
\`\`\`

## Exercises
1. Trace insertion sort on \`[5, 2, 4, 6, 1, 3]\`.
2. Why is merge sort stable? Give an example that shows it.
3. Which input makes quicksort with a first-element pivot quadratic?
`;

const SPEC = `# Spec: offline sync for field notes

## Goals
- Edit notes without a connection and sync them when back online.
- Never lose an edit: conflicts keep both versions.

## Non-goals
- Real-time co-editing while offline.
- Syncing attachments larger than 20 MB.

## Sequence

\`\`\`mermaid
sequenceDiagram
    participant App
    participant Queue
    participant Server
    App->>Queue: save(note, baseRevision)
    Queue->>Server: PATCH /notes/{id}
    Server-->>Queue: 202 Accepted
    Queue->>Server: GET /notes/{id}
    Server-->>App: confirmed body
\`\`\`

## API sketch

\`\`\`ts
interface SyncQueue {
  enqueue(noteId: string, body: string, baseHash: string): Promise<void>;
  flush(): Promise<{ synced: number; conflicts: string[] }>;
}
\`\`\`

## Open questions
- How long do we keep conflict copies?
- Should the queue survive an app update?
`;

const READING_LIST = `# Reading list

- [Designing Data-Intensive Applications](https://dataintensive.net/)
- [Local-first software](https://www.inkandswitch.com/local-first/)
- [CRDTs: the hard parts](https://martin.kleppmann.com/2020/07/06/crdt-hard-parts-hydra.html)
- [The Unison file synchronizer](https://www.cis.upenn.edu/~bcpierce/unison/)`;

const OLD_DRAFT = `# Old draft

This was an early outline for the team newsletter. Everything useful moved into the weekly sync
notes, so the draft went to the trash; restore it if you want to see how restore works.
`;

/** Seed data of the demo workspace, relative to `now`. */
export function demoSeed(token: string, now: number): SeedData {
  const base = emptySeed(token);
  const ago = (days: number): number => now - days * DAY;
  return {
    users: [
      ...(base.users ?? []),
      { userPath: "ada", id: "YWRhLWNvbGxhYm9yYXRvcg", name: "Ada Collaborator", email: null, tokens: [] },
    ],
    teams: [
      {
        path: "sandbox-team",
        id: base.teams?.[0]?.id,
        name: "Sandbox Team",
        visibility: "private",
        members: [
          { userPath: "sandbox", role: "owner" },
          { userPath: "ada", role: "member" },
        ],
      },
    ],
    folders: [
      { ref: "meetings", id: "3f1c2a9e-8b4d-4c6a-9e2f-1a7b5c3d9e01", name: "Meetings", icon: "1F4C5" },
      { ref: "teaching", id: "6a2d4e8f-1c3b-4d5e-8f7a-2b9c0d1e3f02", name: "Teaching" },
      { ref: "cs101", id: "9b3e5f7a-2d4c-4e6f-a08b-3c1d2e4f5a03", name: "CS101", color: "#4F46E5", parent: "teaching" },
      { ref: "specs", id: "c4f6a8b0-3e5d-4f7a-b19c-4d2e3f5a6b04", name: "Specs", workspace: { team: "sandbox-team" } },
    ],
    notes: [
      {
        id: DEMO_NOTE_IDS.weeklySync,
        shortId: "BkWs7yncA",
        title: "Weekly sync — Project Aurora",
        content: WEEKLY_SYNC,
        tags: ["meeting"],
        folder: "meetings",
        createdAt: ago(30),
        lastChangedAt: ago(2),
        comments: [
          {
            id: DEMO_COMMENT_IDS.checklist,
            author: "ada",
            createdAt: ago(2),
            body: "Can we add the offline-first scenarios to the checklist before the pilot?",
            excerpt: "Draft the field-test checklist",
            anchor: { offset: WEEKLY_SYNC.indexOf("Draft the field-test checklist"), length: 30 },
            replies: [
              {
                id: DEMO_COMMENT_IDS.checklistReply,
                author: "sandbox",
                body: "Yes, I will add them this week.",
                createdAt: ago(1),
              },
            ],
          },
          {
            id: DEMO_COMMENT_IDS.headings,
            author: "ada",
            createdAt: ago(2),
            body: "Should automatic merging of headings come back after the pilot?",
            excerpt: "drop automatic merging of headings",
            anchor: { offset: WEEKLY_SYNC.indexOf("drop automatic merging of headings"), length: 34 },
          },
          {
            id: DEMO_COMMENT_IDS.lab,
            author: "ada",
            createdAt: ago(3),
            resolved: true,
            body: "Is the usability lab booked for both days?",
            excerpt: "Book the usability lab",
            anchor: { offset: WEEKLY_SYNC.indexOf("Book the usability lab"), length: 22 },
          },
        ],
      },
      {
        id: DEMO_NOTE_IDS.cs101,
        shortId: "SyCs101hA",
        title: "CS101 handout: sorting algorithms",
        content: CS101,
        tags: ["cs101", "teaching"],
        folder: "cs101",
        readPermission: "guest",
        writePermission: "owner",
        permalink: "cs101-sorting",
        createdAt: ago(21),
        lastChangedAt: ago(5),
      },
      {
        id: DEMO_NOTE_IDS.spec,
        shortId: "HkSpecOfs",
        title: "Spec: offline sync for field notes",
        content: SPEC,
        workspace: { team: "sandbox-team" },
        folder: "specs",
        creator: "sandbox",
        lastChangeUser: "ada",
        tags: ["spec"],
        createdAt: ago(14),
        lastChangedAt: ago(1),
      },
      {
        id: DEMO_NOTE_IDS.readingList,
        shortId: "rJReadLst",
        title: "Reading list",
        content: READING_LIST,
        createdAt: ago(9),
        lastChangedAt: ago(3),
      },
      {
        id: DEMO_NOTE_IDS.oldDraft,
        shortId: "B1OldDrft",
        title: "Old draft",
        content: OLD_DRAFT,
        folder: "meetings",
        createdAt: ago(28),
        lastChangedAt: ago(20),
        trashedAt: ago(6),
      },
    ],
  };
}

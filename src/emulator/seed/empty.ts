/** The `empty` seed (§2.13): user `sandbox` with the primary token and team `sandbox-team`. */
import type { SeedData } from "../types";

/** Fixed id of the sandbox user, so tests and demos can name it. */
export const SANDBOX_USER_ID = "c2FuZGJveC11c2VyLWlkAA";
/** Fixed id of the sandbox team. */
export const SANDBOX_TEAM_ID = "5a9c1f0e-3b7d-4e2a-9f61-0d8c2b4a7e15";

/** Seed data of the empty workspace. */
export function emptySeed(token: string): SeedData {
  return {
    users: [
      {
        userPath: "sandbox",
        id: SANDBOX_USER_ID,
        name: "Sandbox User",
        email: null,
        upgraded: false,
        tokens: [token],
      },
    ],
    teams: [
      {
        path: "sandbox-team",
        id: SANDBOX_TEAM_ID,
        name: "Sandbox Team",
        visibility: "private",
        members: [{ userPath: "sandbox", role: "owner" }],
      },
    ],
  };
}

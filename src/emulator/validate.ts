/** Request-body validation of §2.8, producing the tsoa details of dialect C. */
import type { ValidationDetails } from "./http";

const PERMISSIONS = ["owner", "signed_in", "guest"];
const COMMENT_PERMISSIONS = ["disabled", "forbidden", "owners", "signed_in_users", "everyone"];
const SUGGEST_PERMISSIONS = ["disabled", "forbidden", "owners", "signed_in_users"];
const FEATURE_VALUES = ["disabled", "signed_in_users"];
const PERMALINK = /^[A-Za-z0-9_-]+$/;
const COLOR = /^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/;

/** Fields a note create accepts. */
export const NOTE_CREATE_FIELDS = [
  "title",
  "content",
  "description",
  "tags",
  "readPermission",
  "writePermission",
  "commentPermission",
  "suggestEditPermission",
  "permalink",
  "parentFolderId",
  "noteFeatures",
  "origin",
];

/** Fields a note PATCH accepts. */
export const NOTE_PATCH_FIELDS = [
  "title",
  "content",
  "description",
  "tags",
  "readPermission",
  "writePermission",
  "permalink",
  "parentFolderId",
];

type Check = (value: unknown) => string | null;

const isString: Check = (v) => (typeof v === "string" ? null : "invalid string value");
const isStringOrNull: Check = (v) => (v === null || typeof v === "string" ? null : "invalid string value");
const oneOf =
  (values: string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? null : `should be one of the following; [${values.join(",")}]`;
const isTags: Check = (v) =>
  Array.isArray(v) && v.every((t) => typeof t === "string") ? null : "invalid array of strings";
const isPermalink: Check = (v) =>
  typeof v !== "string"
    ? "invalid string value"
    : PERMALINK.test(v)
      ? null
      : "permalink may only contain letters, digits, - and _";
const isFeatures: Check = (v) => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "invalid object";
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    if (key !== "emoji-reply" && key !== "citation") return `unknown feature ${key}`;
    if (typeof value !== "string" || !FEATURE_VALUES.includes(value)) return `invalid value for ${key}`;
  }
  return null;
};
const isColor: Check = (v) => (typeof v === "string" && COLOR.test(v) ? null : "invalid color");
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null ? null : check(v);

function run(body: Record<string, unknown>, checks: Record<string, Check>): ValidationDetails {
  const details: ValidationDetails = {};
  for (const [field, check] of Object.entries(checks)) {
    if (!(field in body)) continue;
    const value = body[field];
    const problem = check(value);
    if (problem !== null) details[`requestBody.${field}`] = { message: problem, value };
  }
  return details;
}

/** Checks a note create body. */
export function validateNoteCreate(body: Record<string, unknown>): ValidationDetails {
  return run(body, {
    title: isString,
    content: isString,
    description: isString,
    tags: isTags,
    readPermission: oneOf(PERMISSIONS),
    writePermission: oneOf(PERMISSIONS),
    commentPermission: oneOf(COMMENT_PERMISSIONS),
    suggestEditPermission: oneOf(SUGGEST_PERMISSIONS),
    permalink: isPermalink,
    parentFolderId: isString,
    noteFeatures: isFeatures,
    origin: isString,
  });
}

/** Checks a note PATCH body; under `strict`, unknown and create-only fields fail too. */
export function validateNotePatch(body: Record<string, unknown>, strict: boolean): ValidationDetails {
  const details = run(body, {
    title: isString,
    content: isString,
    description: isString,
    tags: isTags,
    readPermission: oneOf(PERMISSIONS),
    writePermission: oneOf(PERMISSIONS),
    permalink: isPermalink,
    parentFolderId: isStringOrNull,
  });
  if (strict) {
    for (const key of Object.keys(body)) {
      if (NOTE_PATCH_FIELDS.includes(key)) continue;
      const message = NOTE_CREATE_FIELDS.includes(key) ? "field is only accepted on create" : "unknown field";
      details[`requestBody.${key}`] = { message, value: body[key] };
    }
  }
  return details;
}

/** Checks a folder create body; `parentFolderId: null` fails, as measured on HackMD. */
export function validateFolderCreate(body: Record<string, unknown>): ValidationDetails {
  return run(body, {
    name: isString,
    description: isString,
    icon: isString,
    color: isColor,
    parentFolderId: isString,
  });
}

/** Checks a folder PATCH body. */
export function validateFolderPatch(body: Record<string, unknown>): ValidationDetails {
  return run(body, {
    name: isString,
    description: isStringOrNull,
    icon: isStringOrNull,
    color: orNull(isColor),
    parentFolderId: isStringOrNull,
  });
}

/** Rank of a permission, least permissive first. */
export function permissionRank(permission: string): number {
  return PERMISSIONS.indexOf(permission);
}

// The bounded schemas the SDK tests share: every value is an enum, a boolean or a small integer, so
// a random model's constrained output always finishes within a few dozen tokens.
export const PROFILE = {
  type: "object",
  properties: {
    ok: { type: "boolean" },
    level: { enum: ["low", "mid", "high"] },
    n: { type: "integer", minimum: 0, maximum: 99 },
  },
  required: ["ok", "level", "n"],
  additionalProperties: false,
};
export const WEATHER = {
  type: "object",
  properties: { city: { enum: ["Paris", "Tokyo", "Lima"] }, unit: { enum: ["c", "f"] } },
  required: ["city", "unit"],
  additionalProperties: false,
};
export const TIME = {
  type: "object",
  properties: { zone: { enum: ["UTC", "CET"] } },
  required: ["zone"],
  additionalProperties: false,
};

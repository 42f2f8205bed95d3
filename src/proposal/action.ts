// The four actions of the closed contract (Part 5), as typed data for the dispatcher.
import type { FunctionName, ManagedFileName } from "../constants/labConstants.ts";

export type Action =
  | { readonly action: "read"; readonly file: ManagedFileName }
  | {
      readonly action: "replace";
      readonly function: FunctionName;
      readonly old: string;
      readonly new: string;
      readonly version: number;
    }
  | { readonly action: "test" }
  | { readonly action: "finish"; readonly version: number };

export type ActionName = Action["action"];

/** The only action names; matched by equality, never used to look anything up. */
export const ACTION_NAMES: readonly ActionName[] = ["read", "replace", "test", "finish"];

/** The exact key set of each branch, in the order fields are checked and reported. */
export function actionKeys(name: ActionName): readonly string[] {
  switch (name) {
    case "read":
      return ["action", "file"];
    case "replace":
      return ["action", "function", "old", "new", "version"];
    case "test":
      return ["action"];
    case "finish":
      return ["action", "version"];
  }
}

// tca bench quixbugs fetch-dataset [--directory D] [--yes] [--archive-url U]: the pinned
// QuixBugs commit into the user's cache (or D), every file verified against the project's
// SHA-256 manifest. Explicit opt-in, as for the model: an interactive "yes", or --yes.
import { resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { fetchedDatasetDir } from "../../bench/dataset/dataset.ts";
import { FETCH_LIMITS, fetchDataset, QUIXBUGS_MANIFEST } from "../../bench/dataset/datasetFetch.ts";
import { isExplicitYes } from "../../model/artifacts/consent.ts";
import { refusal } from "../commandError.ts";
import { tcaCommand } from "../invocation.ts";
import { outputFolder } from "../pathArguments.ts";
import { megabytes, statusLine } from "../progress.ts";
import type { SetExitCode } from "./index.ts";

interface FetchFlags {
  directory?: string;
  yes?: boolean;
  archiveUrl?: string;
  json?: boolean;
}

async function askYes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return isExplicitYes(await rl.question(`${question} Type yes to continue: `));
  } catch {
    return false;
  } finally {
    rl.close();
  }
}

export function registerFetchDatasetCommand(quix: Command, setExitCode: SetExitCode): void {
  quix
    .command("fetch-dataset")
    .description(
      "download the pinned QuixBugs commit (MIT) from GitHub into your cache; every file is checked against the project's SHA-256 manifest",
    )
    .option(
      "--directory <dir>",
      "where to put it (default: $XDG_CACHE_HOME/tiny-coding-agent/quixbugs-<commit>, the benchmark's default --dataset)",
    )
    .option("--yes", "consent to the download without being asked")
    .option("--archive-url <url>", "a mirror of the archive (default: GitHub's archive of the pinned commit)")
    .option("--json", "print one JSON document")
    .action(async (flags: FetchFlags) => {
      const refuse = refusal(setExitCode, 1);
      const json = flags.json === true;
      const directory = resolve(flags.directory ?? fetchedDatasetDir());
      // The default cache location is made with its parents; a --directory given is made, its parent must exist.
      const usable = outputFolder("--directory", directory, { makeParents: flags.directory === undefined });
      if (!usable.ok) {
        if (json)
          process.stdout.write(`${JSON.stringify({ ok: false, error: usable.error, message: usable.message })}\n`);
        return refuse(usable.error, usable.message);
      }
      const url = flags.archiveUrl ?? QUIXBUGS_MANIFEST.archiveUrl;
      const question = `Download ${QUIXBUGS_MANIFEST.repository} at ${QUIXBUGS_MANIFEST.commit.slice(0, 12)} (${QUIXBUGS_MANIFEST.license} licence, at most ${megabytes(FETCH_LIMITS.archiveMaxBytes)}) from ${new URL(url).origin} into ${directory}?`;
      if (flags.yes !== true) {
        if (!process.stdin.isTTY || json) {
          return refuse("consent_required", `${question} Nothing was downloaded; pass --yes to agree`);
        }
        if (!(await askYes(question))) {
          return refuse("consent_refused", "only an explicit yes counts; nothing was downloaded");
        }
      }
      const status = statusLine({ json });
      const result = await fetchDataset({
        directory,
        archiveUrl: url,
        onProgress: (event) => {
          if (event.kind === "bytes") status.update(`fetch-dataset: ${megabytes(event.received)} received`);
          else if (event.kind === "attempt" && event.attempt > 1) status.update("fetch-dataset: retrying once");
          else if (event.kind === "verifying") status.update(`fetch-dataset: verifying ${event.files} files`);
        },
      });
      status.done();
      if (!result.ok) {
        if (json)
          process.stdout.write(`${JSON.stringify({ ok: false, error: result.error, message: result.message })}\n`);
        return refuse(result.error, result.message);
      }
      if (json) process.stdout.write(`${JSON.stringify({ ok: true, ...result.value })}\n`);
      else if (result.value.status === "already_present")
        process.stdout.write(`already present and verified: ${result.value.directory}\n`);
      else
        process.stdout.write(
          `fetched and verified ${result.value.files} files (${megabytes(result.value.archiveBytes)} archive) into ${result.value.directory}\nnext step: ${tcaCommand(["bench", "quixbugs", "verify-dataset"])}\n`,
        );
      setExitCode(0);
    });
}

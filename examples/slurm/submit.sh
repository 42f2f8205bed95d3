#!/bin/sh
# Submits the benchmark's array job, then the merge job that waits for all of its tasks to
# succeed (afterok). Needs TCA_ENDPOINT, TCA_MODEL and TCA_OUT exported (quixbugs-array.sbatch);
# TCA_OUT need not exist (the first array task creates it; its parent must exist).
set -eu
here=$(dirname "$0")
# The one place the shard count is set: the array's ids 0..TCA_SHARDS-1 come from it, and both
# jobs read it from the environment sbatch copies into them.
: "${TCA_SHARDS:=4}"
export TCA_SHARDS
array=$(sbatch --parsable --array="0-$((TCA_SHARDS - 1))" "$here/quixbugs-array.sbatch")
array=${array%%;*}   # --parsable prints "id" or "id;cluster"
merge=$(sbatch --parsable --dependency="afterok:$array" "$here/quixbugs-merge.sbatch")
echo "array job $array ($TCA_SHARDS tasks), merge job ${merge%%;*} after it; watch with: squeue -u \"\$USER\""

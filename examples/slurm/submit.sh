#!/bin/sh
# Submits the benchmark's array job, then the merge job that waits for all of its tasks to
# succeed (afterok). Needs TCA_ENDPOINT, TCA_MODEL and TCA_OUT exported (quixbugs-array.sbatch).
set -eu
here=$(dirname "$0")
array=$(sbatch --parsable "$here/quixbugs-array.sbatch")
array=${array%%;*}   # --parsable prints "id" or "id;cluster"
merge=$(sbatch --parsable --dependency="afterok:$array" "$here/quixbugs-merge.sbatch")
echo "array job $array (4 tasks), merge job ${merge%%;*} after it; watch with: squeue -u \"\$USER\""

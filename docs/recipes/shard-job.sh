#!/bin/sh
# One shard of a run on a job array: a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, from 0), a CI
# matrix, or any scheduler that numbers its tasks. Every task runs the same config; the index picks
# its slice of the plan. A retried task resumes its shard instead of starting it again.
set -eu
index="${JOB_COMPLETION_INDEX:?the task index, from 0}"
count="${SHARDS:?how many tasks}"
config="${FCBENCH_CONFIG:-fcbench.yaml}"
shard="$((index + 1))/$count"
out="${RUNS:-runs}/shard-$index"
previous=""
if [ -d "$out" ]; then
  previous="$(find "$out" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
fi
status=0
if [ -n "$previous" ]; then
  fcbench run --config "$config" --shard "$shard" --resume "$previous" --no-progress || status=$?
else
  fcbench run --config "$config" --shard "$shard" --out "$out" --no-progress || status=$?
fi
# 1 is this shard's own gate, judged again on the merged run; 2 (bad input) or a signal fails the task
[ "$status" -le 1 ]

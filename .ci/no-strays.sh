#!/usr/bin/env bash
# Nothing of ours outlives the suite (a CLI worker, a language server, a flake8 or pytest
# child): after a few seconds' grace, no process of this session may be running one.
# What runs us (.ci/run, CI's own harness, whose script text may name pytest) is an
# ancestor and never a stray; a process is named by its program and first two
# arguments (`python3 -m pytest`, `bin/flake8 …`), not by the text it was given.
set -euo pipefail
session="$(ps -o sid= -p $$ | tr -d ' ')"
ancestors=" $$ "
pid=$$
while [ "$pid" -gt 1 ]; do
    pid="$(ps -o ppid= -p "$pid" | tr -d ' ')"
    [ -n "$pid" ] || break
    ancestors+="$pid "
done
strays=""
for _ in 1 2 3 4 5 6; do
    strays="$(ps -eo pid=,sid=,args= | awk -v sid="$session" -v ancestors="$ancestors" '
        $2 == sid && index(ancestors, " " $1 " ") == 0 && ($3 " " $4 " " $5) ~ /flake8|pylsp|pytest|tensorcopy/')"
    [ -z "$strays" ] && break
    sleep 1
done
[ -z "$strays" ] || { printf 'processes left running after the suite:\n%s\n' "$strays" >&2; exit 1; }

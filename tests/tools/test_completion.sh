#!/usr/bin/env bash
# scripts/trainvp-completion.bash completes commands, options and describe's names (from the
# binary given as $1) the way bash calls it.  Exit 1 with the first wrong completion.
set -u
source "$(dirname "$0")/../../scripts/trainvp-completion.bash"
bin=$1
fail=0
expect() {  # expect "WANTED" WORD...: completes the last word
    local want=$1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _trainvp
    if [ "${COMPREPLY[*]}" != "$want" ]; then
        echo "completing '${COMP_WORDS[*]}': got '${COMPREPLY[*]}', want '$want'"
        fail=1
    fi
}
expect "describe diff" "$bin" d
expect "report" "$bin" rep
expect "--json" "$bin" run x.yaml --js
expect "--threshold" "$bin" diff a b --th
expect "nic.basic nic.inceptionn" "$bin" describe nic.
expect "zoo.resnet50" "$bin" describe zoo.res
expect "sweep" "$bin" help sw
exit $fail

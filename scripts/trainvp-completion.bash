# bash completion for trainvp (installed as share/bash-completion/completions/trainvp; source it
# by hand from a build: `source scripts/trainvp-completion.bash`).  Commands and their options
# come from `trainvp help`'s list; `describe` completes the names `trainvp describe --names`
# prints; files complete as configs (.yaml) or run folders.
_trainvp() {
    local cur prev cmd
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    local commands="run check sweep describe diff report help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    cmd="${COMP_WORDS[1]}"
    case "$prev" in
        --out|--merge) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --plugin) COMPREPLY=($(compgen -f -X '!*.so' -- "$cur") $(compgen -d -- "$cur")); return ;;
        --emit-jobs) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --set|--seed|--jobs|-j|--threshold) return ;;
    esac
    local opts=""
    case "$cmd" in
        run) opts="--set --out --vcd --vcd-signals --vcd-window --vcd-max-size --seed --quiet --json --report --force --plugin --help" ;;
        report) opts="--help" ;;
        check) opts="--set --seed --plugin --help" ;;
        sweep) opts="--jobs --out --force --emit-jobs --merge --help" ;;
        describe) opts="--markdown --names --plugin --help" ;;
        diff) opts="--threshold --all --help" ;;
        help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    case "$cmd" in
        describe)
            local names
            names="$("${COMP_WORDS[0]}" describe --names 2>/dev/null)"
            COMPREPLY=($(compgen -W "$names" -- "$cur"))
            ;;
        diff|report) COMPREPLY=($(compgen -d -- "$cur")) ;;
        *) COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
}
complete -o filenames -F _trainvp trainvp

# bash.awk: bash completion for harness, from the records from-help.sh reads out of
# `harness help` (C command, O option: short, long, argument). Options come from the help
# text; only the fixed sets of values some options take are written here.
$1 == "C" { cmds = cmds " " $2 }
# A usage with a word after [options] (merge's SHARD.jsonl...) takes files as arguments.
$1 == "U" && $3 ~ /\] +[A-Za-z]/ { positional = positional (positional == "" ? "" : " | ") $2 }
$1 == "O" {
    if (!($2 in opts))
        order[++n] = $2
    opts[$2] = opts[$2] " --" $4
    if ($5 == "")
        next
    # FILE and FILE-like arguments complete file names; any other argument takes a value.
    names = "--" $4 ($3 != "" ? "|" $3 : "")
    if ($5 ~ /FILE|jsonl/)
        files[$2] = files[$2] (files[$2] == "" ? "" : "|") names
    else
        values[$2] = values[$2] (values[$2] == "" ? "" : "|") names
}
END {
    print "# harness bash completion: generated from `harness help` by packaging/from-help.sh."
    print "# Installed as PREFIX/share/bash-completion/completions/harness."
    print ""
    print "# The options of a command (harness help COMMAND)."
    print "_harness_options() {"
    print "    case $1 in"
    for (i = 1; i <= n; i++)
        printf "    %s) echo \"%s\" ;;\n", order[i], substr(opts[order[i]], 2)
    print "    esac"
    print "}"
    print ""
    print "# What the value of option $2 of command $1 completes to: file, value (a word of"
    print "# _harness_values), or nothing when the option is a flag."
    print "_harness_takes() {"
    print "    case $1 in"
    for (i = 1; i <= n; i++) {
        c = order[i]
        if (files[c] == "" && values[c] == "")
            continue
        printf "    %s)\n        case $2 in\n", c
        if (files[c] != "")
            printf "        %s) echo file ;;\n", files[c]
        if (values[c] != "")
            printf "        %s) echo value ;;\n", values[c]
        print "        esac ;;"
    }
    print "    esac"
    print "}"
    print ""
    print "# The fixed sets of values (the options' help says what each means)."
    print "_harness_values() {"
    print "    case $1 in"
    print "    --backend | -b) echo \"vulkan cuda hip sim\" ;;"
    print "    --tier | -t) echo \"quick standard nightly\" ;;"
    print "    --sanitize) echo \"memcheck racecheck\" ;;"
    print "    --devices) echo all ;;"
    print "    --schedule) echo \"mixed:0 lockstep random:1\" ;;"
    print "    esac"
    print "}"
    print ""
    print "_harness() {"
    print "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd=${COMP_WORDS[1]}"
    print "    # --opt=value: bash splits the word at '=' (COMP_WORDBREAKS)."
    print "    if [[ $cur == = ]]; then"
    print "        cur="
    print "    elif [[ $prev == = ]]; then"
    print "        prev=${COMP_WORDS[COMP_CWORD - 2]}"
    print "    fi"
    print "    COMPREPLY=()"
    print "    if ((COMP_CWORD == 1)); then"
    printf "        mapfile -t COMPREPLY < <(compgen -W \"%s --version --help\" -- \"$cur\")\n", substr(cmds, 2)
    print "        return"
    print "    fi"
    print "    if [[ $cmd == help ]]; then"
    printf "        ((COMP_CWORD == 2)) && mapfile -t COMPREPLY < <(compgen -W \"%s\" -- \"$cur\")\n", substr(cmds, 2)
    print "        return"
    print "    fi"
    print "    case $(_harness_takes \"$cmd\" \"$prev\") in"
    print "    file)"
    print "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")"
    print "        compopt -o filenames 2>/dev/null"
    print "        return ;;"
    print "    value)"
    print "        mapfile -t COMPREPLY < <(compgen -W \"$(_harness_values \"$prev\")\" -- \"$cur\")"
    print "        return ;;"
    print "    esac"
    if (positional != "") {
        print "    if [[ $cur != -* ]]; then"
        printf "        case $cmd in\n        %s)\n", positional
        print "            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")"
        print "            compopt -o filenames 2>/dev/null"
        print "            return ;;"
        print "        esac"
        print "    fi"
    }
    print "    mapfile -t COMPREPLY < <(compgen -W \"$(_harness_options \"$cmd\")\" -- \"$cur\")"
    print "}"
    print "complete -F _harness harness"
}

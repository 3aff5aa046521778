#!/bin/sh
# SPDX-License-Identifier: MIT
# from-help.sh: the man page and the bash completion, both written from the binary's own
# `harness help` output, so they list exactly the commands and options it takes: an option
# added to a cli.h table reaches both at the next build, with no second list kept by hand.
#   packaging/from-help.sh man  HARNESS VERSION >harness.1
#   packaging/from-help.sh bash HARNESS         >harness.bash
# The help text is cli.c's layout: "options:", then "  -b, --name ARG   text" with the text
# after 31 columns and continuation lines indented as far.
set -eu
mode=$1 harness=$2 version=${3:-}
here=$(dirname "$0")

# The commands `harness help` lists, less the two that only print (version, help).
commands=$("$harness" help | awk '/^commands:/ { on = 1; next }
    on && /^  [a-z]/ && $1 != "version" && $1 != "help" { print $1 } on && /^$/ { exit }')

# The help as tab-separated records: from `harness help`, C (command, text) and X (an exit code
# line); from each `harness help COMMAND`, U (usage line), D (description line) and O (short,
# long, argument, text), its cli.c table as printed.
records() {
    "$harness" help | awk '/^commands:/ { on = 1; next } on && /^$/ { on = 0 }
        on && /^  [a-z]/ { name = $1; sub(/^  [a-z-]+ +/, ""); text[name] = $0; order[++n] = name; next }
        on { sub(/^ +/, ""); text[name] = text[name] " " $0 }
        /^exit codes:/ { exits = 1 } exits && !on { sub(/^ +/, ""); print "X\t\t" $0 }
        END { for (i = 1; i <= n; i++) print "C\t" order[i] "\t" text[order[i]] }'
    for c in $commands; do
        "$harness" help "$c" | awk -v cmd="$c" -F '\n' '
            function flush() { if (long != "") print "O\t" cmd "\t" short "\t" long "\t" arg "\t" text; long = "" }
            /^options:/ { opts = 1; next }
            !opts && /^usage:/ { print "U\t" cmd "\t" $0; next }
            !opts { print "D\t" cmd "\t" $0; next }
            /^  (-[A-Za-z], |    )--[A-Za-z0-9-]/ {
                flush()
                # The head is padded to 28 columns; one longer is followed by a single space,
                # and then an argument is a word without lower-case letters.
                line = substr($0, 3)
                if (match(substr(line, 5), /  +/) && RSTART <= 25) { head = substr(line, 1, RSTART + 3); text = substr(line, RSTART + RLENGTH + 4) }
                else { match(line, /^(-[A-Za-z], |    )--[A-Za-z0-9-]+( [^ a-z]+)? /); head = substr(line, 1, RLENGTH - 1); text = substr(line, RLENGTH + 1) }
                short = head ~ /^-[A-Za-z],/ ? substr(head, 1, 2) : ""
                sub(/^(-[A-Za-z], |    )--/, "", head)
                long = head; arg = ""
                if (index(head, " ")) { long = substr(head, 1, index(head, " ") - 1); arg = substr(head, index(head, " ") + 1) }
                next
            }
            substr($0, 1, 31) ~ /^ +$/ { sub(/^ +/, ""); text = text " " $0; next }
            END { flush() }'
    done
}

# The page's date: SOURCE_DATE_EPOCH where a reproducible build sets it, else the binary's.
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
    date=$(date -u -r "$harness" +%Y-%m-%d)
fi
case $mode in
man) records | awk -F '\t' -v version="$version" -v date="$date" -f "$here/man.awk" ;;
bash) records | awk -F '\t' -f "$here/bash.awk" ;;
*) echo "usage: $0 man|bash HARNESS [VERSION]" >&2; exit 2 ;;
esac

#!/bin/bash
# SPDX-License-Identifier: MIT
# Fetches the public code bases the walk-throughs judge, each at its pinned commit, into
# examples/public/PROJECT/src (git-ignored: their code is never committed here): the folders
# holding the files source.txt lists, each of which must be there.
# Usage: examples/public/fetch.sh [PROJECT...]   (default: every folder with a source.txt)
# HB_PUBLIC_MIRROR=DIR reads DIR/OWNER+NAME/repo (a local bare mirror) instead of GitHub.
# They are extracted with no .git: src/ stays small enough to carry to a GPU machine that has
# no network, and a mirror missing unrelated large blobs (documents, data sets) still serves
# them. src/.fetched records the commit and the files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$2"; }

fetch_one() {
  local project=$1 meta="$here/$1/source.txt"
  [[ -f "$meta" ]] || { echo "fetch.sh: $meta: no such file" >&2; return 1; }
  local repo commit files into="$here/$project/src" gitdir tmp
  repo=$(field repo "$meta")
  commit=$(field commit "$meta")
  files=$(field files "$meta")
  [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ && "$commit" =~ ^[0-9a-f]{40}$ && -n "$files" ]] || {
    echo "fetch.sh: $meta: needs 'repo OWNER/NAME', 'commit SHA' (40 hex digits) and 'files PATH...'" >&2
    return 1
  }
  if [[ -f "$into/.fetched" ]] && [[ "$(cat "$into/.fetched")" == "$commit $files" ]]; then
    echo "$project: $repo at $commit (already there)"
    return 0
  fi
  tmp=$(mktemp -d)
  if [[ -n "${HB_PUBLIC_MIRROR:-}" ]]; then
    gitdir=$HB_PUBLIC_MIRROR/${repo/\//+}/repo
  else # blobs on demand: only the extracted paths' are downloaded
    git clone -q --bare --filter=blob:none "https://github.com/$repo" "$tmp/repo"
    gitdir=$tmp/repo
  fi
  rm -rf "$into"
  mkdir -p "$into"
  # The folders of the files the manifests use (their neighbours: headers they include), a
  # file at the top alone, a listed folder whole: some suites are hundreds of megabytes.
  local paths=() f kind
  # shellcheck disable=SC2086 # files is a list of paths without spaces
  for f in $files; do
    kind=$(git --git-dir="$gitdir" cat-file -t "$commit:$f" 2>/dev/null) || {
      rm -rf "$tmp" "$into"
      echo "fetch.sh: $project: $f is not in $repo at $commit" >&2
      return 1
    }
    if [[ $kind == tree || $f != */* ]]; then paths+=("$f"); else paths+=("$(dirname "$f")"); fi
  done
  if ! git --git-dir="$gitdir" archive --format=tar "$commit" -- "${paths[@]}" | tar -x -C "$into"; then
    rm -rf "$tmp" "$into"
    echo "fetch.sh: $project: cannot extract ${paths[*]} at $commit from $repo" >&2
    return 1
  fi
  rm -rf "$tmp"
  echo "$commit $files" >"$into/.fetched"
  echo "$project: $repo at $commit ($(field licence "$meta")), $(du -sh "$into" | cut -f1)"
}

projects=("$@")
if [[ ${#projects[@]} -eq 0 ]]; then
  for meta in "$here"/*/source.txt; do
    [[ -f "$meta" ]] && projects+=("$(basename "$(dirname "$meta")")")
  done
fi
[[ ${#projects[@]} -gt 0 ]] || { echo "fetch.sh: no project has a source.txt" >&2; exit 1; }
for project in "${projects[@]}"; do fetch_one "$project"; done

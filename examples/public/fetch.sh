#!/bin/bash
# SPDX-License-Identifier: MIT
# Fetches the public code bases the walk-throughs judge, each at its pinned commit, into
# examples/public/PROJECT/src (git-ignored: their code is never committed here): the folders
# holding the files source.txt lists, each of which must be there.
# Usage: examples/public/fetch.sh [PROJECT...]   (default: every folder with a source.txt)
# HB_PUBLIC_MIRROR=DIR clones from DIR/OWNER+NAME/repo (a local bare mirror) instead of GitHub.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$2"; }

fetch_one() {
  local project=$1 meta="$here/$1/source.txt"
  [[ -f "$meta" ]] || { echo "fetch.sh: $meta: no such file" >&2; return 1; }
  local repo commit url into="$here/$project/src"
  repo=$(field repo "$meta")
  commit=$(field commit "$meta")
  [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ && "$commit" =~ ^[0-9a-f]{40}$ ]] || {
    echo "fetch.sh: $meta: needs 'repo OWNER/NAME' and 'commit SHA' (40 hex digits)" >&2
    return 1
  }
  if [[ -d "$into/.git" ]] && [[ $(git -C "$into" rev-parse HEAD) == "$commit" ]]; then
    echo "$project: $repo at $commit (already there)"
    return 0
  fi
  url=https://github.com/$repo
  [[ -z "${HB_PUBLIC_MIRROR:-}" ]] || url=$HB_PUBLIC_MIRROR/${repo/\//+}/repo
  rm -rf "$into"
  git clone -q --no-checkout "$url" "$into"
  # Only the folders of the files the manifests use: some suites are hundreds of megabytes.
  local files dirs=()
  read -r -a files <<<"$(field files "$meta")"
  for f in "${files[@]}"; do dirs+=("/$(dirname "$f")/"); done
  [[ ${#dirs[@]} -eq 0 ]] || git -C "$into" sparse-checkout set --no-cone "${dirs[@]}"
  git -C "$into" checkout -q "$commit"
  for f in "${files[@]}"; do
    [[ -f "$into/$f" ]] || { echo "fetch.sh: $project: $f is not in $repo at $commit" >&2; return 1; }
  done
  echo "$project: $repo at $commit ($(field licence "$meta"))"
}

projects=("$@")
if [[ ${#projects[@]} -eq 0 ]]; then
  for meta in "$here"/*/source.txt; do
    [[ -f "$meta" ]] && projects+=("$(basename "$(dirname "$meta")")")
  done
fi
[[ ${#projects[@]} -gt 0 ]] || { echo "fetch.sh: no project has a source.txt" >&2; exit 1; }
for project in "${projects[@]}"; do fetch_one "$project"; done

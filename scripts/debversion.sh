#!/usr/bin/env bash
# Prints the Debian package version for a build (scripts/dist.sh uses it):
#   debversion.sh VERSION COMMIT
# VERSION is `git describe --tags --always --dirty` (what make passes):
#   v1.2.3 (a tagged commit)        -> 1.2.3          (a "-" becomes "~":
#                                       v1.0.0-rc.1 -> 1.0.0~rc.1, before 1.0.0)
#   v1.2.3-4-gabc1234 (after a tag) -> 1.2.3+git<date>.abc1234
#   8602646 (no tag yet)            -> 0.0.0~git<date>.8602646
# <date> is the commit's date and time in UTC, YYYYMMDDhhmmss, so that
# dpkg orders builds of one branch by time and every tagged release sorts
# after every untagged build; "-dirty" adds ".dirty".
set -euo pipefail
version=${1:?usage: debversion.sh VERSION COMMIT} commit=${2:?usage: debversion.sh VERSION COMMIT}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

v=${version#v} dirty=
if [[ $v == *-dirty ]]; then
  v=${v%-dirty} dirty=.dirty
fi
date=$(TZ=UTC git show -s --format=%cd --date=format-local:%Y%m%d%H%M%S "$commit" 2>/dev/null || true)
date=${date:-00000000000000}
if [[ $v =~ ^(.+)-([0-9]+)-g([0-9a-f]+)$ ]]; then
  base=${BASH_REMATCH[1]}
  echo "${base//-/\~}+git$date.${BASH_REMATCH[3]}$dirty"
elif [[ $v =~ ^[0-9a-f]{7,40}$ ]]; then # a bare hash, however it starts
  echo "0.0.0~git$date.$v$dirty"
elif [[ ! $v =~ ^[0-9] ]]; then # "dev", "unknown": the commit says which
  echo "0.0.0~git$date.${commit:0:7}$dirty"
else
  echo "${v//-/\~}$dirty"
fi

# lookup --json: every field, "url": null without SourceLink, "file": null for no answer.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 0x0600000a 7 --json; echo "exit $?"
ilmap lookup f.ilmap 99999 0 --json; echo "exit $?"

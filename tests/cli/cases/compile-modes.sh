# File modes of caches (issue 9 item 4): a new cache gets 0666 & ~umask (a cache may carry
# source code), and replacing a cache keeps the existing file's mode.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
cp "$FRAMES.pdb" app.pdb
(umask 077 && ilmap compile -q app.pdb -o private.ilmap); stat -c '%a %n' private.ilmap
(umask 022 && ilmap compile -q app.pdb -o public.ilmap); stat -c '%a %n' public.ilmap
(umask 027 && ilmap compile -q app.pdb -o group.ilmap); stat -c '%a %n' group.ilmap
# Replaced caches keep their modes, whatever the umask.
cp "$FEATURES.pdb" app.pdb
(umask 022 && ilmap compile -q app.pdb -o private.ilmap); stat -c '%a %n' private.ilmap
chmod 640 public.ilmap
(umask 077 && ilmap compile -q app.pdb -o public.ilmap); stat -c '%a %n' public.ilmap
(umask 000 && ilmap compile -q --force app.pdb -o group.ilmap); stat -c '%a %n' group.ilmap
ilmap verify private.ilmap public.ilmap >/dev/null && echo "replaced caches verify"

# symstore's file.ptr (a pointer in place of the file: PATH:<path or URL>, MSG:<text>), in a
# local store and over HTTP: a PATH to a local file or to a URL is followed and the target
# verified like a download (kept in the local cache, its cache compiled); MSG: is "not found"
# with the text; a pointer to a wrong file is refused; a malformed pointer is an error;
# nothing is left in the local cache after a refusal.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb"
mkdir in elsewhere && cp "$FRAMES.dll" in/ && cp "$FRAMES.pdb" "$FEATURES.pdb" elsewhere/
F=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
mkdir -p www/$F
start_nginx "$PWD/www"
echo "-- local store: PATH to a relative and to an absolute path"
echo "PATH:../../../elsewhere/Ilmap.Corpus.Frames.pdb" >www/$F/file.ptr
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll
printf 'path:%s\r\n' "$PWD/elsewhere/Ilmap.Corpus.Frames.pdb" >www/$F/file.ptr
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll | sed "s#$PWD#PWD#"
echo "-- HTTP: PATH to a local path; the target is kept in the local cache with its cache"
: >"$NGINX_LOG"
show ilmap fetch --symbol-path "srv*c1*$URL" in/Ilmap.Corpus.Frames.dll
cmp c1/$F/ilmap.corpus.frames.pdb elsewhere/Ilmap.Corpus.Frames.pdb && echo "pdb equal"
ilmap lookup c1/$F/ilmap.corpus.frames.ilmap 0x06000001 0 >/dev/null; echo "lookup exit $?"
cat "$NGINX_LOG"
echo "-- HTTP: PATH to a URL (SymbolChecksum sent to it too)"
mkdir www/files && cp elsewhere/Ilmap.Corpus.Frames.pdb www/files/frames.pdb
echo "PATH:$URL/files/frames.pdb" >www/$F/file.ptr
: >"$NGINX_LOG"
show ilmap fetch -v --symbol-path "srv*c2*$URL" in/Ilmap.Corpus.Frames.dll
cmp c2/$F/ilmap.corpus.frames.pdb elsewhere/Ilmap.Corpus.Frames.pdb && echo "pdb equal"
cat "$NGINX_LOG"
echo "-- MSG: not found, with the text (local and HTTP)"
echo "MSG: withdrawn by the release team" >www/$F/file.ptr
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll
show ilmap fetch --symbol-path "srv*c3*$URL" in/Ilmap.Corpus.Frames.dll
echo "-- a pointer to another PDB: refused, nothing kept"
echo "PATH:$PWD/elsewhere/Ilmap.Corpus.Features.pdb" >www/$F/file.ptr
show ilmap fetch --symbol-path "srv*c4*$URL" in/Ilmap.Corpus.Frames.dll | sed "s#$PWD#PWD#"
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll | sed "s#$PWD#PWD#"
echo "-- malformed pointers"
echo "SOMEWHERE:/x" >www/$F/file.ptr
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll
printf 'PATH:/a\nPATH:/b\n' >www/$F/file.ptr
show ilmap fetch --symbol-path "srv*c5*$URL" in/Ilmap.Corpus.Frames.dll
head -c 5000 /dev/zero | tr '\0' a | sed 's/^/PATH:/' >www/$F/file.ptr
show ilmap fetch --symbol-path "srv*c6*$URL" in/Ilmap.Corpus.Frames.dll
echo "-- a UNC path is not followed"
echo 'PATH:\\build\symbols\frames.pdb' >www/$F/file.ptr
show ilmap fetch --symbol-path "srv*c7*$URL" in/Ilmap.Corpus.Frames.dll
echo "-- a Windows drive path, a missing target: not found (local and HTTP)"
printf 'PATH:C:\\syms\\frames.pdb\r\n' >www/$F/file.ptr
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll
show ilmap fetch --symbol-path "srv*c8*$URL" in/Ilmap.Corpus.Frames.dll
echo "PATH:elsewhere/gone.pdb" >www/$F/file.ptr
show ilmap fetch --symbol-path www in/Ilmap.Corpus.Frames.dll
echo "PATH:$PWD/elsewhere/gone.pdb" >www/$F/file.ptr
show ilmap fetch --symbol-path "srv*c9*$URL" in/Ilmap.Corpus.Frames.dll | sed "s#$PWD#PWD#"
find c3 c4 c5 c6 c7 c8 c9 -type f -not -name .ilmap-store.lock -not -path '*/.ilmap-404/*' 2>/dev/null | wc -l

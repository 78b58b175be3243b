# dump of a FIFO is refused at once (it used to block in fopen waiting for a writer).
mkfifo f.pdb
timeout 10 ilmap dump f.pdb > /dev/null 2> err.txt
echo "exit $?"
grep -c "not a regular file" err.txt

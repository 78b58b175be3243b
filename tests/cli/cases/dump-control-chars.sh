# Control characters and invalid UTF-8 from the file (a document name holding \n, ESC, NUL and
# 0xFF) are escaped in text output (dump listing and --documents, of the PDB and of its cache;
# info; verify), never written raw; --json keeps them as JSON strings.
. "$(dirname "$0")/../common.sh"
need "$GOLDEN/control-chars-name.pdb"
cp "$GOLDEN/control-chars-name.pdb" $'odd\nname.pdb'
ilmap dump $'odd\nname.pdb'; echo "exit $?"
ilmap dump --documents $'odd\nname.pdb'; echo "exit $?"
ilmap dump --documents --json $'odd\nname.pdb' | grep '"path"'
ilmap compile -q $'odd\nname.pdb' -o c.ilmap; echo "compile: exit $?"
ilmap dump c.ilmap; echo "exit $?"
ilmap dump --documents c.ilmap; echo "exit $?"
ilmap info $'odd\nname.pdb' | grep -E '^(input|ssqp_key):'
ilmap info c.ilmap | grep -E '^(input|ssqp_key|source_name):'
ilmap dump $'no\nsuch\e.pdb'; echo "exit $?"

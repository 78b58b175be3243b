# Frames behind the prefixes of container logs, made from their documented formats around a real
# CoreCLR trace (corpus/traces/cs-frames.il-offsets.txt, its first scenario):
#   CRI (containerd, CRI-O; /var/log/pods/*.log): "<RFC 3339 nano time> <stream> <P|F> <line>"
#     (Kubernetes CRI container log format, kubernetes/design-proposals-archive
#     node/kubelet-cri-logging.md); F marks a full line
#   kubectl logs --timestamps: "<RFC 3339 nano time> <line>" (kubectl logs --help)
# Docker's json-file driver writes JSON lines: symbolicate-log-json.sh.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$CORPUS/traces/cs-frames.il-offsets.txt"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
awk '/^== generic-nested$/ { exit } { print }' "$CORPUS/traces/cs-frames.il-offsets.txt" >trace.txt
echo "-- CRI"
awk '{ printf "2026-11-24T10:00:%02d.%09dZ stderr F %s\n", NR, NR * 1234567, $0 }' trace.txt >cri.log
ilmap symbolicate --search pe --cache-dir cc cri.log; echo "exit $?"
echo "-- kubectl logs --timestamps (CRLF lines, as from a Windows node)"
awk '{ printf "2026-11-24T10:00:%02d.%09dZ %s\r\n", NR, NR * 7654321, $0 }' trace.txt >kubectl.log
echo "$(ilmap symbolicate --search pe --cache-dir cc kubectl.log 2>/dev/null | grep -c $'\r$') lines end in CRLF"
ilmap symbolicate --search pe --cache-dir cc kubectl.log | tr -d '\r'; echo "exit ${PIPESTATUS[0]}"

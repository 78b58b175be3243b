# Frames behind adb logcat's prefixes (Android's "Logcat command-line tool" documentation, output
# formats): brief "E/AndroidRuntime( 1234): " and the default threadtime
# "11-24 10:00:00.123  1234  1234 E AndroidRuntime: ", with the frame forms a .NET app on Android
# logs: Mono's ("[0x..] in <mvid>:0", the Mono runtime of .NET for Android) and the
# "NS.T.M + 0xOFF(Unknown Source)" form, tab-indented as Java prints a stack trace.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
mvid=$(ilmap info --json pe/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"mvid": "\([0-9a-f-]*\)".*/\1/p' | tr -d -)
{
  echo 'FATAL EXCEPTION: main'
  echo 'Process: com.example.app, PID: 1234'
  echo 'android.runtime.JavaProxyThrowable: [Ilmap.Corpus.Frames.ScenarioException]: plain'
  printf '\tat %s\n' 'Ilmap.Corpus.Frames.Scenarios.Fail + 0x7(Unknown Source)' \
    'Ilmap.Corpus.Frames.Plain.Level2 + 0x9(Unknown Source)' \
    'crc6488302ad6e9e4df1a.MainActivity.n_onCreate(Native Method)'
  echo 'Ilmap.Corpus.Frames.ScenarioException: plain'
  printf '  at %s [0x%05x] in <%s>:0 \n' 'Ilmap.Corpus.Frames.Scenarios.Fail (System.String why)' 7 "$mvid" \
    'Ilmap.Corpus.Frames.Plain.Level2 (System.Int32 y)' 9 "$mvid" \
    'Ilmap.Corpus.Frames.Plain.Level1 (System.Int32 x)' 5 "$mvid"
} >crash.txt
echo "-- brief"
sed 's/^/E\/AndroidRuntime( 1234): /' crash.txt >brief.log
ilmap symbolicate --search pe --cache-dir cc brief.log; echo "exit $?"
echo "-- threadtime"
sed 's/^/11-24 10:00:00.123  1234  1234 E AndroidRuntime: /' crash.txt >threadtime.log
ilmap symbolicate --search pe --cache-dir cc threadtime.log; echo "exit $?"

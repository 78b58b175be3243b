// MonoNames.cs - the Mono runtime's own frame text for every MethodDef of a DLL (built by mcs,
// run by mono; tests/oracle-names/check-mono.sh). A one-frame StackTrace over a StackFrame whose
// GetMethod() is Module.ResolveMethod(token): Mono's StackTrace.ToString formats it; the "  at "
// prefix and the " [0x00000] in <...>:0" location are cut off.
//   mono MonoNames.exe DLL ROWS   ->  0x06000001 TAB text, one line per MethodDef row
using System;
using System.Diagnostics;
using System.Reflection;
using System.Text;
class GivenFrame : StackFrame {
  MethodBase m;
  public GivenFrame(MethodBase m) { this.m = m; }
  public override MethodBase GetMethod() { return m; }
  public override int GetILOffset() { return 0; }
  public override string GetFileName() { return null; }
}
static class P {
  static int Main(string[] args) {
    var asm = Assembly.LoadFrom(args[0]);
    var mod = asm.ManifestModule;
    int rows = int.Parse(args[1]);
    var sb = new StringBuilder();
    for (int rid = 1; rid <= rows; rid++) {
      int token = 0x06000000 | rid;
      sb.Append("0x").Append(token.ToString("x8")).Append('\t');
      try {
        var mb = mod.ResolveMethod(token);
        string t = new StackTrace(new GivenFrame(mb)).ToString();
        int nl = t.IndexOf('\n'); if (nl >= 0) t = t.Substring(0, nl);
        t = t.TrimEnd('\r');
        if (t.StartsWith("  at ")) t = t.Substring(5);
        int br = t.LastIndexOf(" [0x"); if (br >= 0) t = t.Substring(0, br);
        sb.Append(t);
      } catch (Exception e) { sb.Append("<" + e.GetType().Name + ">"); }
      sb.Append('\n');
    }
    Console.Write(sb.ToString());
    return 0;
  }
}

// CecilOracle - prints the canonical sequence-point listing (docs/text-output.md) of an assembly's
// Windows (MSF) PDB as Mono.Cecil's managed reader (Mono.Cecil.Pdb.NativePdbReader) decodes it.
//   CecilOracle ASSEMBLY [PDB]     (PDB defaults to ASSEMBLY with the extension .pdb)
//   CecilOracle --il ASSEMBLY      the instruction boundaries of every method body instead: one
//                                  line per method with IL, in token order,
//                                  "0x06000001 CODE_SIZE OFFSET OFFSET ..." (Instruction.Offset of
//                                  each instruction Cecil decodes), the oracle of decode/MethodBody
// Methods in token order; each method's points by IL offset, equal offsets in PDB order (a stable
// sort). Exit 0 ok, 1 usage, 2 the PDB is not read as a Windows PDB or reading failed.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Mono.Cecil;
using Mono.Cecil.Cil;
using Mono.Cecil.Pdb;

namespace Ilmap.CecilOracle {

internal static class Program {
  private static int Main(string[] args) {
    if (args.Length == 2 && args[0] == "--il") return ListIl(args[1]);
    if (args.Length < 1 || args.Length > 2) {
      Console.Error.WriteLine("usage: CecilOracle ASSEMBLY [PDB]");
      return 1;
    }
    string assembly = args[0];
    string pdb = args.Length > 1 ? args[1] : Path.ChangeExtension(assembly, ".pdb");
    try {
      using var pdbStream = File.OpenRead(pdb);
      var parameters = new ReaderParameters {
        ReadSymbols = true,
        SymbolStream = pdbStream,
        SymbolReaderProvider = new NativePdbReaderProvider(),
      };
      using var module = ModuleDefinition.ReadModule(assembly, parameters);
      if (module.SymbolReader is not NativePdbReader) {
        Console.Error.WriteLine("CecilOracle: error: " + pdb + " was not read as a Windows PDB");
        return 2;
      }
      var methods = new List<MethodDefinition>();
      foreach (TypeDefinition type in module.GetTypes())
        methods.AddRange(type.Methods);
      var sb = new StringBuilder();
      foreach (MethodDefinition m in methods.OrderBy(m => m.MetadataToken.ToUInt32())) {
        if (!m.HasBody && !m.DebugInformation.HasSequencePoints) continue;
        uint token = m.MetadataToken.ToUInt32();
        foreach (SequencePoint p in m.DebugInformation.SequencePoints.OrderBy(p => p.Offset)) {
          sb.Append("0x").Append(token.ToString("x8")).Append(' ')
            .Append(p.Offset).Append(' ')
            .Append(p.Document.Url).Append(' ')
            .Append(p.StartLine).Append(':').Append(p.StartColumn).Append('-')
            .Append(p.EndLine).Append(':').Append(p.EndColumn);
          if (p.IsHidden) sb.Append(" hidden");
          sb.Append('\n');
        }
      }
      var stdout = Console.OpenStandardOutput();
      byte[] bytes = new UTF8Encoding(false).GetBytes(sb.ToString());
      stdout.Write(bytes, 0, bytes.Length);
      return 0;
    } catch (Exception e) {
      Console.Error.WriteLine("CecilOracle: error: " + e.GetType().Name + ": " + e.Message);
      return 2;
    }
  }

  private static int ListIl(string assembly) {
    try {
      using var module = ModuleDefinition.ReadModule(assembly);
      var methods = new List<MethodDefinition>();
      foreach (TypeDefinition type in module.GetTypes())
        methods.AddRange(type.Methods);
      var sb = new StringBuilder();
      foreach (MethodDefinition m in methods.OrderBy(m => m.MetadataToken.ToUInt32())) {
        if (!m.HasBody || m.RVA == 0) continue;
        MethodBody body = m.Body;
        sb.Append("0x").Append(m.MetadataToken.ToUInt32().ToString("x8")).Append(' ').Append(body.CodeSize);
        foreach (Instruction i in body.Instructions)
          sb.Append(' ').Append(i.Offset);
        sb.Append('\n');
      }
      var stdout = Console.OpenStandardOutput();
      byte[] bytes = new UTF8Encoding(false).GetBytes(sb.ToString());
      stdout.Write(bytes, 0, bytes.Length);
      return 0;
    } catch (Exception e) {
      Console.Error.WriteLine("CecilOracle: error: " + e.GetType().Name + ": " + e.Message);
      return 2;
    }
  }
}

}

Imports System
Imports System.Collections.Generic
Imports System.Linq
Imports System.Threading.Tasks

Namespace Global.Ilmap.Corpus.VbBasic

    Public Class Counter
        Private ReadOnly _counts As New Dictionary(Of String, Integer)()

        Public Sub Add(word As String)
            Dim current As Integer = 0
            If _counts.TryGetValue(word, current) Then
                _counts(word) = current + 1
            Else
                _counts(word) = 1
            End If
        End Sub

        Public Function Top(n As Integer) As IEnumerable(Of String)
            Dim threshold = n
            Return _counts.Where(Function(kv) kv.Value >= threshold) _
                          .OrderByDescending(Function(kv) kv.Value) _
                          .Select(Function(kv) kv.Key)
        End Function

        Public Iterator Function Evens(limit As Integer) As IEnumerable(Of Integer)
            For i As Integer = 0 To limit Step 2
                Yield i
            Next
        End Function

        Public Async Function TotalAsync() As Task(Of Integer)
            Dim total = 0
            For Each pair In _counts
                Await Task.Yield()
                total += pair.Value
            Next
            Return total
        End Function
    End Class

    Public Module Text
        Public Function Describe(o As Object) As String
            Select Case True
                Case o Is Nothing
                    Return "nothing"
                Case TypeOf o Is Integer
                    Return "integer " & CInt(o).ToString()
                Case Else
                    Try
                        Return o.ToString()
                    Catch ex As Exception When ex.Message IsNot Nothing
                        Return "error"
                    Finally
                        Console.Write("")
                    End Try
            End Select
        End Function

        Public Function SumWhile(limit As Integer) As Integer
            Dim i = 0
            Dim s = 0
            Do While i < limit
                s += i
                i += 1
            Loop
            Return s
        End Function
    End Module
End Namespace

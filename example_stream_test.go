package applypatch_test

import (
	"fmt"

	"github.com/applypatch/applypatch"
)

// A front end shows a patch while the model still writes it: each delta goes into the
// Stream, and Patch says what is complete so far. A hunk is complete when the next "@@"
// arrives, an Add when the next section or the end does.
func ExampleStream() {
	var s applypatch.Stream
	for _, delta := range []string{
		"*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprint",
		"ln(\"hello\")\n@@ func other() {\n-\treturn 1\n",
		"+\treturn 2\n*** Add File: NOTES.md\n+notes\n",
		"*** End Patch\n",
	} {
		s.Write([]byte(delta))
		if p := s.Patch(); p != nil {
			fmt.Printf("%d operations, the first with %d hunks\n", len(p.Ops), len(p.Ops[0].Hunks))
		} else {
			fmt.Println("nothing complete yet")
		}
	}
	p, err := s.Close()
	fmt.Println(len(p.Ops), err)
	// Output:
	// nothing complete yet
	// 1 operations, the first with 1 hunks
	// 1 operations, the first with 2 hunks
	// 2 operations, the first with 2 hunks
	// 2 <nil>
}

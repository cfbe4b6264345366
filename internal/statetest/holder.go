package statetest

import (
	"bufio"
	"os/exec"
	"testing"
)

// StartHolder starts cmd, a process that takes a lock, prints "held" on a line of its own
// and keeps the lock until its standard input closes. It returns once the lock is held,
// with the process's id; the process is released and waited for when the test ends.
func StartHolder(t testing.TB, cmd *exec.Cmd) int {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "held\n" {
		t.Fatalf("the holding process: %q", line)
	}
	return cmd.Process.Pid
}

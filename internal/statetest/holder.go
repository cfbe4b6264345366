package statetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
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

// Hold is the holding process's side of StartHolder: it opens dir, takes its lock with
// lock, prints "held" and keeps the lock until standard input closes. It returns the
// process's exit code.
func Hold(dir string, lock func(context.Context, *os.File) (func(), error)) int {
	d, err := os.Open(dir)
	if err == nil {
		var release func()
		if release, err = lock(context.Background(), d); err == nil {
			defer release()
		}
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

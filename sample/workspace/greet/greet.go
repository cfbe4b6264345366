package greet

import "fmt"

// Hello returns a greeting for name.
func Hello(name string) string {
	return fmt.Sprintf("Hello, %s", name)
}

// Bye returns a farewell for name.
func Bye(name string) string {
	return fmt.Sprintf("Bye, %s", name)
}

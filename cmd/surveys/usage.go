package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// usageError is a command line that is wrong: an unknown command or flag,
// a missing or unexpected argument. main exits 2 for it.
type usageError struct {
	err     error
	printed bool // err is already on standard error (the flag package printed it)
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef is a usageError of its own message.
func usagef(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// usageOn prints what is wrong, then usage, on stderr, and returns it as
// a usageError.
func usageOn(stderr io.Writer, usage, format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	fmt.Fprintf(stderr, "surveys: %v\n%s", err, usage)
	return &usageError{err: err, printed: true}
}

// exitCode is the exit status for what run returned, after saying on
// stderr what went wrong: 0 for success and for help asked for, 2 for a
// wrong command line, 1 for any other failure.
func exitCode(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintln(stderr, "surveys:", err)
		}
		return 2
	}
	fmt.Fprintln(stderr, "surveys:", err)
	return 1
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// parseFlags parses args with fs, the flags of the command "surveys
// <fs.Name()>" whose synopsis is synopsis. Asked for help (-h, --help), it
// prints the synopsis and the command's flags on stdout and returns
// flag.ErrHelp; given a flag it does not know, it prints the error and a
// short usage on fs's output and returns a usageError.
func parseFlags(fs *flag.FlagSet, synopsis string, args []string, stdout io.Writer) error {
	fs.Usage = func() {} // printed below, where it belongs
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, strings.TrimSpace("Usage: surveys "+fs.Name()+" "+synopsis))
		has := false
		fs.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprintln(stdout, "\nFlags:")
			out := fs.Output()
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			fs.SetOutput(out)
		}
		return flag.ErrHelp
	case err != nil:
		fmt.Fprintf(fs.Output(), "%s\nRun \"surveys %s -h\" for its flags.\n", strings.TrimSpace("Usage: surveys "+fs.Name()+" "+synopsis), fs.Name())
		return &usageError{err: err, printed: true}
	}
	return nil
}

// subcommand is the subcommand of a group of commands (user, token,
// tenant) that args name, one of subs. Asked for help, it prints the
// group's usage on stdout and returns flag.ErrHelp; with none or an
// unknown one, it prints the usage on stderr and returns a usageError.
func subcommand(group string, subs []string, usage string, args []string, stdout, stderr io.Writer) (string, error) {
	switch {
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, usage)
		return "", flag.ErrHelp
	case len(args) > 0 && slices.Contains(subs, args[0]):
		return args[0], nil
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", usageOn(stderr, usage, "%s: give one of: %s", group, strings.Join(subs, ", "))
	}
	return "", usageOn(stderr, usage, "%s: unknown command %q; use one of: %s", group, args[0], strings.Join(subs, ", "))
}
